// The search driver's rules apart from a server: each probe is sized for the share's sample floor and
// judged on the records it wrote; a probe stopped by its error rate fails whatever share of its sent
// requests met the SLOs; the outcome file, with each probe's evidence, reads back through the fail-closed
// reader. The probe runner is the driver's own seam (bench and the matrix each pass one); it writes
// closed-loop records here as a server answering in 100 ms would produce them.
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LevelSummary } from '../metrics/summary.js';
import { planSchema } from '../plan/schema.js';
import { buildRecords } from '../report/test-support.js';
import { readSloSearchRecord } from '../results/slo-search-file.js';
import type { Session } from './session.js';
import { type ProbeRequest, searchThroughSession } from './slo-search-run.js';

const plan = planSchema.parse({
  load: {
    kind: 'slo_search',
    slo_search: { over: 'concurrency', start: 2, min: 1, max: 16, precision: 1, share: 0.5 },
  },
  slo: { ttft_ms: 100 },
});

describe('searchThroughSession', () => {
  it('sizes probes for the sample floor, judges them on their records, and fails one stopped by its error rate', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'bg-slo-driver-'));
    const file = join(outDir, 'requests.jsonl');
    const notes: string[] = [];
    const sizes: ProbeRequest[] = [];
    const run = await searchThroughSession({ plan } as Session, {
      outDir,
      note: (n) => notes.push(n),
      requestsFile: () => file,
      runProbe: async (li, probe) => {
        sizes.push(probe);
        const specs = Array.from({ length: probe.requests }, () => ({
          ttftMs: 10,
          e2eMs: 100,
          outputTokens: 4,
        }));
        const records = buildRecords(li, probe.level.value, specs, li * 1000);
        appendFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
        return {
          summary: { levelIndex: li, level: probe.level } as unknown as LevelSummary,
          interrupted: false,
          prefixCache: null,
          stop:
            probe.level.value >= 4
              ? { code: 'BG_E_LEVEL_ERROR_RATE', message: 'too many errors', endsRun: false }
              : null,
        };
      },
    });
    expect(run.result.probes.map((p) => [p.value, p.outcome])).toEqual([
      [2, 'pass'],
      [4, 'fail'],
      [3, 'pass'],
      [3, 'pass'], // the answer, confirmed
    ]);
    expect(run.result).toMatchObject({ best: 3, firstFail: 4, stoppedBy: 'precision' });
    // p50 needs 11 samples: 11 / 0.9 rounded up, plus the ramp-up and drain of 2 × N
    expect(sizes[0]).toMatchObject({ requests: 13 + 4, durationMs: 300_000 });
    expect(notes).toContain('benchgate: slo_search probe at c=2: 17 measured requests (at most 300 s).');
    expect(
      notes.find((n) => n.startsWith('benchgate: slo_search at c=4: fail: stopped by its error rate')),
    ).toBeTruthy();
    const back = await readSloSearchRecord(outDir);
    expect(back.kind).toBe('value');
    if (back.kind !== 'value') return;
    expect(back.value).toMatchObject({ best: 3, firstFail: 4, interrupted: false, tolerance: 0.95 });
    // the answer was confirmed, and carries an interval over every probe (the error-rate stop counted as held nothing)
    expect(back.value.confirmed).toBe(true);
    expect(back.value.interval).toMatchObject({ probes: 4, confidence: 0.95 });
    expect(back.value.probes.map((p) => p.offered)).toEqual([2, 4, 3, 3]);
    expect(notes.at(-1)).toMatch(
      /: 3 offered \(lowest failing: 4; 95% interval [\d.≤≥ ]+–[\d.≤≥ ]+ over 4 probes;/,
    );
    expect(back.value.probes[0].evidence).toMatchObject({ unit: 'concurrency', offered: 2, floor: 11 });
    expect(back.value.probes[0].evidence?.achieved).toBeCloseTo(2, 5);
  });

  it('runs an inconclusive probe again, sized up by how far its steady window fell short of the floor', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'bg-slo-retry-'));
    const file = join(outDir, 'requests.jsonl');
    const sizes: number[] = [];
    const run = await searchThroughSession({ plan } as Session, {
      outDir,
      note: () => {},
      requestsFile: () => file,
      runProbe: async (li, probe) => {
        sizes.push(probe.requests);
        const specs = Array.from({ length: probe.requests }, () => ({
          ttftMs: 10,
          e2eMs: 100,
          outputTokens: 4,
        }));
        const records = buildRecords(li, probe.level.value, specs, li * 1000);
        // the first probe's second stream started 0.8 s late: most of its requests fall outside the steady window
        if (li === 0)
          for (const r of records.filter((_, i) => i % 2 === 1)) {
            r.scheduledMs += 800;
            r.sentMs += 800;
            r.endMs += 800;
            r.chunkMs = r.chunkMs.map((t) => t + 800);
          }
        appendFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
        const summary = { levelIndex: li, level: probe.level } as unknown as LevelSummary;
        return { summary, interrupted: false, prefixCache: null, stop: null };
      },
    });
    expect(run.result.probes.slice(0, 2).map((p) => [p.value, p.outcome])).toEqual([
      [2, 'inconclusive'],
      [2, 'pass'],
    ]);
    // grown by how far the first window fell short of the floor of 11, plus 10%
    const first = (await readSloSearchRecord(outDir)) as {
      kind: 'value';
      value: { probes: { evidence?: { samples: number } }[] };
    };
    const samples = first.value.probes[0].evidence?.samples as number;
    expect(samples).toBeLessThan(11);
    expect(sizes.slice(0, 2)).toEqual([17, Math.ceil((17 * 11 * 1.1) / samples)]);
  });
});
