import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeLevel } from '../metrics/level.js';
import type { LevelSummary } from '../metrics/summary.js';
import { withholdUnsupported } from '../metrics/tail-samples.js';
import { planSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { REQUESTS_FILE } from '../results/layout.js';
import { runBench } from './run-bench.js';

const storedRecords = (runDir: string): RequestRecord[] =>
  readFileSync(join(runDir, REQUESTS_FILE), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RequestRecord);

/** Most requests in flight at once, from the records' send and end times. */
function maxInFlight(records: RequestRecord[]): number {
  const edges = records.flatMap((r) => [
    { t: r.sentMs, d: 1 },
    { t: r.endMs, d: -1 },
  ]);
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let n = 0;
  let most = 0;
  for (const e of edges) {
    n += e.d;
    most = Math.max(most, n);
  }
  return most;
}

describe('a bench run over two worker threads', () => {
  it('writes summaries equal to those recomputed from its requests.jsonl, with every request at the right concurrency', async () => {
    const plan = planSchema.parse({
      name: 'workers',
      workload: { dataset: 'random', input_tokens: { fixed: 16 }, output_tokens: { fixed: 8 }, seed: 5 },
      load: { kind: 'concurrency', levels: [1, 6], requests: 30, warmup: 3, workers: 2 },
      output: mkdtempSync(join(tmpdir(), 'bg-workers-')),
    });
    const res = await runBench({
      plan,
      simulator: { flavor: 'sglang', profile: 'fixed' },
      simulatorInProcess: true,
    });
    const records = storedRecords(res.runDir);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    for (const [li, level] of res.summary.levels.entries()) {
      const own = records.filter((r) => r.levelIndex === li);
      const stored = JSON.parse(readFileSync(join(res.runDir, `level-0${li}.json`), 'utf8')) as LevelSummary;
      // the file holds the level as judged once, its unsupported percentiles withheld (null with their counts)
      expect(stored).toEqual(withholdUnsupported(level));
      const recomputed = summarizeLevel({
        levelIndex: li,
        level: level.level,
        records: own,
        percentiles: plan.percentiles,
        slo: plan.slo,
        inFlightAtEnd: level.requests.inFlightAtEnd,
        client: level.client,
        validity: level.validity,
        // no GPU on this machine: the same reason the run recorded (power is not in the records)
        power: { reason: level.energy?.reason ?? 'no energy figure' },
        // the prefix-cache counters read around the level are not in the records either
        cache: { counters: level.cache?.counters ?? null, expectedShare: level.cache?.expectedShare ?? null },
      });
      // the judgement is the sweeper's, made from more than the records (the run's checks): not recomputed
      const { judgement: _judgement, ...figures } = level as LevelSummary & { judgement?: unknown };
      expect(recomputed).toEqual(figures);
      expect(level.requests.completed).toBe(30);
      expect(level.requests.warmup).toBe(3);
      expect(level.client.workers).toHaveLength(2);
      const concurrency = plan.load.levels[li]!;
      expect(maxInFlight(own.filter((r) => !r.warmup))).toBe(concurrency);
    }
  });
});
