// The search driver's rules apart from a server: a probe stopped by its error rate fails whatever share
// of its sent requests met the SLOs, and the outcome file it writes reads back through the fail-closed
// reader. The probe runner is the driver's own seam (bench and the matrix each pass one); only the plan
// of the session is used.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LevelSummary } from '../metrics/summary.js';
import { planSchema } from '../plan/schema.js';
import { readSloSearchRecord } from '../results/slo-search-file.js';
import type { Session } from './session.js';
import { searchThroughSession } from './slo-search-run.js';

const plan = planSchema.parse({
  load: {
    kind: 'slo_search',
    requests: 3,
    slo_search: { over: 'concurrency', start: 2, min: 1, max: 16, precision: 1, share: 0.5 },
  },
  slo: { ttft_ms: 100 },
});

describe('searchThroughSession', () => {
  it('fails a probe stopped by its error rate even when the requests it sent met the SLOs, and notes probes beyond load.requests', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'bg-slo-driver-'));
    const notes: string[] = [];
    const run = await searchThroughSession({ plan } as Session, {
      outDir,
      note: (n) => notes.push(n),
      runProbe: async (li, probe) => ({
        summary: { levelIndex: li, level: probe.level, goodput: { fraction: 1 } } as unknown as LevelSummary,
        interrupted: false,
        prefixCache: null,
        stop:
          probe.level.value >= 4
            ? { code: 'BG_E_LEVEL_ERROR_RATE', message: 'too many errors', endsRun: false }
            : null,
      }),
    });
    expect(run.result.probes.map((p) => [p.value, p.passed])).toEqual([
      [2, true],
      [4, false],
      [3, true],
    ]);
    expect(run.result).toMatchObject({ best: 3, firstFail: 4, stoppedBy: 'precision' });
    expect(notes.some((n) => n.includes('probes above concurrency 3 send only load.requests = 3'))).toBe(
      true,
    );
    expect(notes).toContain(
      'benchgate: slo_search at c=4: 100.0% met the SLOs (fail: stopped by its error rate).',
    );
    const back = await readSloSearchRecord(outDir);
    expect(back.kind === 'value' && back.value).toMatchObject({ best: 3, firstFail: 4, interrupted: false });
  });
});
