// history labels each level with its own validity: a run with one valid level and one suspect for host
// timing noise is "suspect" as a whole, and its valid level stays valid in the history (it was labelled
// with the run's word before); a reason of the run itself (a forced checkpoint) still reaches every level.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { specs, writeRunDir } from '../report/test-support.js';
import { metricHistory } from './history.js';
import { openStore, storeLocation } from './store.js';

const root = await mkdtemp(join(tmpdir(), 'bg-history-validity-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const noisy = {
  client: {
    eventLoopDelayP99Ms: 40,
    cpuPercentOfOneCore: 5,
    clientLimited: false,
    timingNoise: 'event-loop lag p99 40 ms with client CPU only 5%',
  },
};
const levels = [
  { concurrency: 1, specs: specs(20, { e2eMs: 500, ttftMs: 50 }) },
  { concurrency: 4, specs: specs(20, { e2eMs: 600, ttftMs: 60 }), summaryExtra: noisy },
];

describe('history per level', () => {
  it("labels each level with its own validity, and the run's own reasons on every level", async () => {
    await writeRunDir(root, { name: 'mixed', levels });
    await writeRunDir(root, { name: 'forced', levels, forced: { failedFindingIds: ['model'] } });
    const { db } = await openStore(storeLocation({ results: root }, {}), () => {});
    try {
      const points = await metricHistory(db, { metric: 'output_throughput', filter: {}, iterations: 50 });
      const word = (name: string, label: string) =>
        points.find((p) => p.name === name && p.label === label)?.validity;
      expect([word('mixed', 'c=1'), word('mixed', 'c=4')]).toEqual(['valid', 'suspect']);
      expect([word('forced', 'c=1'), word('forced', 'c=4')]).toEqual(['invalid', 'invalid']);
      const runs = await db.all("SELECT validity FROM runs WHERE name = 'mixed'");
      expect(runs[0].validity).toBe('suspect');
    } finally {
      db.close();
    }
  }, 120_000);
});
