import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../records/request-record.js';
import { buildRecords, specs, summarizeForTest } from '../report/test-support.js';
import { CacheTally, cacheShareText } from './cache-share.js';
import { summarizeLevel } from './level.js';
import { judgeLevel } from './validity.js';

const key = { kind: 'concurrency', value: 4 } as const;

/** 100 completed requests of 128 prompt tokens, `cached` of them served from the cache (undefined: not said). */
function level(cached: number | undefined) {
  const records = buildRecords(0, 4, specs(100, { e2eMs: 100, ttftMs: 10, tokens: 64 }));
  if (cached !== undefined) for (const r of records) r.cachedInputTokens = cached;
  const summary = summarizeForTest(0, key, records);
  const tally = new CacheTally();
  for (const r of records) tally.add(r);
  summary.cache = tally.finish({ counters: null, expectedShare: null });
  return { records, summary };
}

describe('cache evidence of a level', () => {
  it('is the share of prompt tokens the server said it served from cache, per request first', () => {
    const { summary } = level(96);
    expect(summary.cache).toMatchObject({
      share: 0.75,
      source: 'per-request',
      reporting: 100,
      measured: 100,
    });
    expect(cacheShareText(summary.cache)).toBe('75.0% of prompt tokens (per request, 100/100 reported)');
  });

  it('falls back to the counters over the measured phase, and is unknown (never 0) without either', () => {
    const t = new CacheTally();
    const counters = { hitTokens: 30, queryTokens: 120, source: 'a / b' };
    expect(t.finish({ counters, expectedShare: null })).toMatchObject({
      share: 0.25,
      source: 'metrics-counters',
    });
    expect(t.finish({ counters: null, expectedShare: null })).toMatchObject({ share: null, source: null });
    // counters that go backwards (a restart) are not evidence
    expect(t.finish({ counters: { ...counters, hitTokens: 200 }, expectedShare: null })?.share).toBeNull();
  });

  it('is in the level summary from the records, as summarizeLevel computes it', () => {
    const records: RequestRecord[] = buildRecords(0, 2, specs(10, { e2eMs: 50, ttftMs: 5, tokens: 8 }));
    records.forEach((r, i) => {
      r.cachedInputTokens = i < 5 ? 128 : 0;
    });
    const s = summarizeLevel({
      levelIndex: 0,
      level: key,
      records,
      percentiles: [50],
      slo: {},
      inFlightAtEnd: 0,
    });
    expect(s.cache?.share).toBeCloseTo(0.5, 12);
  });
});

describe('a material cached share in a workload not meant to share', () => {
  it('makes the level SUSPECT, naming the share, its source and the likely cause', () => {
    const { records, summary } = level(127);
    const v = judgeLevel(summary, records);
    expect(v.status).toBe('suspect');
    expect(v.reasons.find((r) => r.check === 'prefix-cache')?.text).toMatch(
      /^Prefix cache: 99\.2% of the measured prompt tokens \(127 per request\) were served from the server's cache \(per request, 100\/100 reported\) in a workload not meant to share prompts; likely cause: the same prompts were sent to this server before/,
    );
  });

  it('is what a shared-prefix, multi-turn or trace workload measures, not a bias', () => {
    const { records, summary } = level(127);
    expect(judgeLevel(summary, records, { workloadShares: true }).reasons.map((r) => r.check)).not.toContain(
      'prefix-cache',
    );
  });

  it('leaves a chat template’s few shared tokens alone (below 32 tokens per request)', () => {
    const { records, summary } = level(20);
    expect(judgeLevel(summary, records).reasons.map((r) => r.check)).not.toContain('prefix-cache');
  });
});
