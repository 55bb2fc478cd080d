import { describe, expect, it } from 'vitest';
import type { RequestErrorCode } from '../core/errors.js';
import type { RequestRecord } from '../records/request-record.js';
import { levelTable } from '../results/level-table.js';
import { type LevelInput, summarizeLevel } from './level.js';

/** A hand-built record: chunks are [arrival ms, tokens carried]. */
function rec(o: {
  sentMs: number;
  scheduledMs?: number;
  chunks?: [number, number][];
  endMs?: number;
  warmup?: boolean;
  firstContentMs?: number | null;
  out?: [number | null, number | null];
  in?: [number | null, number | null];
  specVerifySteps?: number;
  error?: RequestErrorCode;
  source?: RequestRecord['chunkTokenSource'];
}): RequestRecord {
  const chunks = o.chunks ?? [];
  const tokenSum = chunks.reduce((s, c) => s + c[1], 0);
  return {
    v: 1,
    id: 0,
    levelIndex: 0,
    warmup: o.warmup ?? false,
    scheduledMs: o.scheduledMs ?? o.sentMs,
    sentMs: o.sentMs,
    headersMs: o.error === 'BG_E_CONNECT' ? null : o.sentMs + 1,
    chunkMs: chunks.map((c) => c[0]),
    chunkTokens: chunks.map((c) => c[1]),
    chunkTokenSource: o.source ?? 'server-per-chunk',
    firstContentMs: o.firstContentMs === undefined ? (chunks[0]?.[0] ?? null) : o.firstContentMs,
    endMs: o.endMs ?? (chunks.at(-1)?.[0] ?? o.sentMs) + 5,
    inputTokensServer: o.in ? o.in[0] : 10,
    inputTokensClient: o.in ? o.in[1] : 10,
    outputTokensServer: o.out ? o.out[0] : tokenSum,
    outputTokensClient: o.out ? o.out[1] : tokenSum,
    requestedOutputTokens: tokenSum,
    specVerifySteps: o.specVerifySteps ?? null,
    finishReason: o.error ? null : 'length',
    httpStatus: o.error === 'BG_E_CONNECT' ? null : 200,
    error: o.error ? { code: o.error, message: 'test' } : null,
  };
}

function level(records: RequestRecord[], extra: Partial<LevelInput> = {}): LevelInput {
  return {
    levelIndex: 2,
    level: { kind: 'concurrency', value: 4 },
    records,
    percentiles: [50, 90, 99],
    slo: {},
    inFlightAtEnd: 0,
    ...extra,
  };
}

// R1: 4 single-token chunks, 50 ms apart. R2: queued 10 ms, reasoning chunk first, then 3- and 2-token chunks.
// A warmup before the window, and a failure that holds the window open until 1100 ms.
const r1 = rec({
  sentMs: 0,
  chunks: [
    [100, 1],
    [150, 1],
    [200, 1],
    [250, 1],
  ],
  endMs: 260,
});
const r2 = rec({
  scheduledMs: 50,
  sentMs: 60,
  chunks: [
    [260, 1],
    [300, 3],
    [340, 2],
  ],
  firstContentMs: 300,
  endMs: 350,
  in: [20, 21],
});
const warm = rec({ sentMs: -500, chunks: [[-400, 1000]], endMs: -300, warmup: true });
const failed = rec({
  sentMs: 100,
  endMs: 1100,
  error: 'BG_E_TTFT_TIMEOUT',
  out: [null, 0],
  source: 'one-per-chunk',
});
const mixed = summarizeLevel(level([warm, r1, r2, failed], { inFlightAtEnd: 3 }));

describe('summarizeLevel on hand-built records', () => {
  it('counts completed, failed and warmup requests and passes in-flight through', () => {
    expect(mixed.requests).toEqual({ completed: 2, failed: 1, warmup: 1, inFlightAtEnd: 3, retried: 0 });
    expect(mixed.levelIndex).toBe(2);
    expect(mixed.level).toEqual({ kind: 'concurrency', value: 4 });
  });

  it('counts a request sent again on a new connection as retried and completed, never failed', () => {
    const retried = { ...r2, retries: 1 };
    const s = summarizeLevel(level([r1, retried]));
    expect(s.requests).toMatchObject({ completed: 2, failed: 0, retried: 1 });
  });

  it('spans the window from the first measured send to the last measured end, failures included', () => {
    expect(mixed.windowS).toBe(1.1);
  });

  it('measures TTFT to the first token chunk and TTFT-content to the first visible content', () => {
    expect(mixed.ttftMs).toMatchObject({ count: 2, mean: 150, std: 50, min: 100, max: 200 });
    expect(mixed.ttftMs!.percentiles).toEqual({ p50: 150, p90: 190, p99: 199 });
    expect(mixed.ttftContentMs).toMatchObject({ count: 2, min: 100, max: 240 });
  });

  it('measures E2E to the last token, E2E incl. queue from the scheduled time, and queue wait', () => {
    expect(mixed.e2eMs).toMatchObject({ min: 250, max: 280 });
    expect(mixed.e2eInclQueueMs).toMatchObject({ min: 250, max: 290 });
    expect(mixed.queueWaitMs).toMatchObject({ count: 2, min: 0, max: 10, mean: 5 });
  });

  it('computes TPOT as (E2E - TTFT) / (output tokens - 1) per request', () => {
    // R1: (250 - 100) / 3 = 50; R2: (280 - 200) / 5 = 16
    expect(mixed.tpotMs).toMatchObject({ count: 2, min: 16, max: 50, mean: 33 });
  });

  it('counts one chunk ITL sample per gap between token-carrying chunks', () => {
    expect(mixed.chunkItlMs).toMatchObject({ count: 5, mean: 46, min: 40, max: 50 });
    expect(mixed.chunkItlMs!.percentiles.p50).toBe(50);
  });

  it('spreads each chunk gap over the tokens that chunk carried for token ITL', () => {
    // R1: 50, 50, 50; R2: 3 x 40/3 then 2 x 20 -> 8 samples summing to 230
    const d = mixed.tokenItlMs!;
    expect(d.count).toBe(8);
    expect(d.mean).toBeCloseTo(28.75, 12);
    expect(d.min).toBeCloseTo(40 / 3, 12);
    expect(d.max).toBe(50);
  });

  it('excludes failed requests from latency distributions and warmup from everything', () => {
    expect(mixed.ttftMs!.count).toBe(2);
    expect(mixed.queueWaitMs!.count).toBe(2);
    // the warmup's 1000-token chunk would dominate throughput and peak if it leaked in
    expect(mixed.throughput.peakOutputTokensPerS).toBe(10);
  });

  it('divides completed requests and their tokens by the window for throughput', () => {
    expect(mixed.throughput.requestsPerS).toBeCloseTo(2 / 1.1, 12);
    expect(mixed.throughput.inputTokensPerS).toBeCloseTo(30 / 1.1, 12);
    expect(mixed.throughput.outputTokensPerS).toBeCloseTo(10 / 1.1, 12);
    expect(mixed.throughput.totalTokensPerS).toBeCloseTo(40 / 1.1, 12);
  });

  it('weights achieved concurrency by time in flight, failed requests included', () => {
    // in flight 260 + 290 + 1000 ms over a 1100 ms window
    expect(mixed.achievedConcurrency).toBeCloseTo(1550 / 1100, 12);
  });

  it('counts errors by code and token disagreements between server and client', () => {
    expect(mixed.errorsByCode).toEqual({ BG_E_TTFT_TIMEOUT: 1 });
    expect(mixed.tokenReconciliation).toEqual({
      compared: 2,
      outputMismatches: 0,
      inputCompared: 3,
      inputMismatches: 1,
      chunkTokenSources: { 'server-per-chunk': 2, 'one-per-chunk': 1 },
    });
  });

  it('has no goodput without SLOs, no speculative data, and a valid, not client-limited level by default', () => {
    expect(mixed.goodput).toBeNull();
    expect(mixed.speculative).toBeNull();
    expect(mixed.validity).toEqual({ valid: true, reasons: [] });
    expect(mixed.client).toEqual({
      eventLoopDelayP99Ms: null,
      cpuPercentOfOneCore: null,
      clientLimited: false,
    });
  });
});

describe('token ITL and TPOT under multi-token chunks', () => {
  it('gives a first chunk of k tokens k - 1 zero samples so mean token ITL equals TPOT', () => {
    const r = rec({
      sentMs: 0,
      chunks: [
        [100, 3],
        [200, 2],
        [260, 3],
      ],
    });
    const s = summarizeLevel(level([r], { percentiles: [50] }));
    // samples: 0, 0, 50, 50, 20, 20, 20
    expect(s.tokenItlMs).toMatchObject({ count: 7, min: 0, max: 50, percentiles: { p50: 20 } });
    expect(s.tokenItlMs!.mean).toBeCloseTo(160 / 7, 12);
    expect(s.tpotMs!.mean).toBeCloseTo(160 / 7, 12);
    expect(s.chunkItlMs).toMatchObject({ count: 2, min: 60, max: 100 });
  });

  it('uses the server output count for TPOT when it disagrees with the chunks', () => {
    const r = rec({
      sentMs: 0,
      chunks: [
        [100, 1],
        [200, 1],
      ],
      out: [11, 2],
    });
    expect(summarizeLevel(level([r])).tpotMs!.mean).toBe(10);
    expect(summarizeLevel(level([r])).tokenReconciliation.outputMismatches).toBe(1);
  });

  it('leaves single-token requests out of TPOT but keeps them in TTFT', () => {
    const one = rec({ sentMs: 0, chunks: [[30, 1]] });
    const two = rec({
      sentMs: 0,
      chunks: [
        [40, 1],
        [70, 1],
      ],
    });
    const s = summarizeLevel(level([one, two]));
    expect(s.tpotMs).toMatchObject({ count: 1, mean: 30 });
    expect(s.ttftMs!.count).toBe(2);
  });
});

describe('levels with nothing measurable', () => {
  it('reports nulls and zero rates for a level of warmup only', () => {
    const s = summarizeLevel(
      level([rec({ sentMs: 0, chunks: [[10, 1]], warmup: true })], { slo: { ttft_ms: 1 } }),
    );
    expect(s.requests).toEqual({ completed: 0, failed: 0, warmup: 1, inFlightAtEnd: 0, retried: 0 });
    expect(s.windowS).toBe(0);
    expect([s.ttftMs, s.tpotMs, s.e2eMs, s.chunkItlMs, s.tokenItlMs, s.queueWaitMs]).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(s.throughput).toEqual({
      requestsPerS: 0,
      inputTokensPerS: 0,
      outputTokensPerS: 0,
      totalTokensPerS: 0,
      peakOutputTokensPerS: 0,
    });
    expect(s.achievedConcurrency).toBe(0);
    expect(s.goodput).toEqual({ requestsPerS: 0, fraction: 0, slo: { ttft_ms: 1 } });
  });

  it('keeps counting failures when every request failed', () => {
    const s = summarizeLevel(
      level([
        rec({ sentMs: 0, endMs: 1000, error: 'BG_E_CONNECT' }),
        rec({ sentMs: 0, endMs: 2000, error: 'BG_E_HTTP_STATUS' }),
        rec({ sentMs: 0, endMs: 500, error: 'BG_E_CONNECT' }),
      ]),
    );
    expect(s.requests.failed).toBe(3);
    expect(s.errorsByCode).toEqual({ BG_E_CONNECT: 2, BG_E_HTTP_STATUS: 1 });
    expect(s.ttftMs).toBeNull();
    expect(s.throughput.requestsPerS).toBe(0);
    expect(s.achievedConcurrency).toBe(1.75);
  });
});

describe('goodput', () => {
  // TTFT 100 / TPOT 50 / E2E 250;  TTFT 200 / TPOT 16 / E2E 280;  TTFT 50, 1 token (no TPOT) / E2E 50
  const one = rec({ sentMs: 0, chunks: [[50, 1]], endMs: 1000 });
  const records = [r1, r2, one, failed];

  it('counts requests meeting every SLO given, per second of window and as a fraction of measured', () => {
    const s = summarizeLevel(level(records, { slo: { ttft_ms: 150, tpot_ms: 40 } }));
    // r1 misses TPOT, r2 misses TTFT, `one` meets TTFT and has no decode phase, `failed` misses
    expect(s.goodput).toEqual({ requestsPerS: 1 / 1.1, fraction: 0.25, slo: { ttft_ms: 150, tpot_ms: 40 } });
  });

  it('treats a limit equal to the measured value as met', () => {
    const s = summarizeLevel(level(records, { slo: { ttft_ms: 200, e2e_ms: 280 } }));
    expect(s.goodput!.fraction).toBe(0.75);
  });

  it('fails every request against an E2E objective that none meets', () => {
    const s = summarizeLevel(level(records, { slo: { e2e_ms: 10 } }));
    expect(s.goodput!.requestsPerS).toBe(0);
  });
});

describe('peak output tokens per second', () => {
  it('counts tokens, not chunks, in 1 s buckets and ignores the partial last bucket', () => {
    const busyByChunks = rec({
      sentMs: 0,
      chunks: Array.from({ length: 10 }, (_, i): [number, number] => [10 + i * 90, 1]),
      endMs: 950,
    });
    const busyByTokens = rec({
      sentMs: 1000,
      chunks: Array.from({ length: 5 }, (_, i): [number, number] => [1100 + i * 100, 5]),
      endMs: 1600,
    });
    const quiet = rec({
      sentMs: 2000,
      chunks: [
        [2100, 2],
        [2500, 2],
      ],
      endMs: 2600,
    });
    const lastPartial = rec({ sentMs: 3000, chunks: [[3200, 100]], endMs: 3500 });
    const s = summarizeLevel(level([busyByChunks, busyByTokens, quiet, lastPartial]));
    expect(s.windowS).toBe(3.5);
    expect(s.throughput.peakOutputTokensPerS).toBe(25);
  });

  it('uses the average rate when the window is shorter than one bucket', () => {
    const s = summarizeLevel(
      level([
        rec({
          sentMs: 0,
          chunks: [
            [100, 4],
            [200, 4],
          ],
          endMs: 400,
        }),
      ]),
    );
    expect(s.throughput.peakOutputTokensPerS).toBe(20);
  });
});

describe('achieved concurrency', () => {
  it('is exactly 2 for two back-to-back streams of requests', () => {
    const s = summarizeLevel(
      level([
        rec({ sentMs: 0, chunks: [[10, 1]], endMs: 500 }),
        rec({ sentMs: 500, chunks: [[510, 1]], endMs: 1000 }),
        rec({ sentMs: 0, chunks: [[10, 1]], endMs: 300 }),
        rec({ sentMs: 300, chunks: [[310, 1]], endMs: 1000 }),
      ]),
    );
    expect(s.achievedConcurrency).toBe(2);
  });
});

describe('speculative acceptance length', () => {
  it('divides output tokens by verify steps from per-request server data', () => {
    const a = rec({ sentMs: 0, chunks: [[10, 6]], specVerifySteps: 2 });
    const b = rec({ sentMs: 0, chunks: [[10, 4]], specVerifySteps: 3 });
    const s = summarizeLevel(level([a, b]));
    expect(s.speculative).toEqual({ acceptanceLength: 2, source: 'per-request', verifySteps: 5 });
  });

  it('says so when only some requests reported verify steps', () => {
    const a = rec({ sentMs: 0, chunks: [[10, 6]], specVerifySteps: 2 });
    const b = rec({ sentMs: 0, chunks: [[10, 4]] });
    expect(summarizeLevel(level([a, b])).speculative).toEqual({
      acceptanceLength: 3,
      source: 'per-request',
      verifySteps: 2,
      note: '1 of 2 completed requests reported verify steps',
    });
  });

  it('ignores warmup and failed requests for per-request acceptance', () => {
    const a = rec({ sentMs: 0, chunks: [[10, 6]], specVerifySteps: 2 });
    const w = rec({ sentMs: 0, chunks: [[10, 100]], specVerifySteps: 1, warmup: true });
    const f = rec({ sentMs: 0, chunks: [[10, 100]], specVerifySteps: 1, error: 'BG_E_STALL_TIMEOUT' });
    expect(summarizeLevel(level([a, w, f])).speculative!.acceptanceLength).toBe(3);
  });

  it('uses vLLM counter deltas: 1 + accepted / drafts', () => {
    const s = summarizeLevel(
      level([r1], {
        specCounters: {
          before: { drafts: 100, draftTokens: 300, acceptedTokens: 200 },
          after: { drafts: 150, draftTokens: 450, acceptedTokens: 300, acceptLengthGauge: 9 },
        },
      }),
    );
    expect(s.speculative).toMatchObject({
      acceptanceLength: 3,
      source: 'metrics-counters',
      verifySteps: 50,
      draftTokens: 150,
      acceptedTokens: 100,
    });
  });

  it('uses generated tokens over verify steps when those are the counters exposed', () => {
    const s = summarizeLevel(
      level([r1], {
        specCounters: {
          before: { verifySteps: 10, generationTokens: 100 },
          after: { verifySteps: 30, generationTokens: 150 },
        },
      }),
    );
    expect(s.speculative).toMatchObject({
      acceptanceLength: 2.5,
      source: 'metrics-counters',
      verifySteps: 20,
    });
  });

  it('prefers per-request data over counters', () => {
    const a = rec({ sentMs: 0, chunks: [[10, 6]], specVerifySteps: 2 });
    const s = summarizeLevel(
      level([a], {
        specCounters: { before: { drafts: 0, acceptedTokens: 0 }, after: { drafts: 1, acceptedTokens: 9 } },
      }),
    );
    expect(s.speculative!.source).toBe('per-request');
  });

  it('falls back to the gauge, labelled, when counters went backwards (server restart)', () => {
    const s = summarizeLevel(
      level([r1], {
        specCounters: {
          before: { drafts: 500, acceptedTokens: 900 },
          after: { drafts: 20, acceptedTokens: 30, acceptLengthGauge: 2.4 },
        },
      }),
    );
    expect(s.speculative).toEqual({
      acceptanceLength: 2.4,
      source: 'metrics-gauge',
      note: "gauge fallback: the server's own running average, not this level's requests",
    });
  });

  it('is null when counters show no speculative work and there is no gauge', () => {
    const s = summarizeLevel(
      level([r1], {
        specCounters: { before: { drafts: 5, acceptedTokens: 5 }, after: { drafts: 5, acceptedTokens: 5 } },
      }),
    );
    expect(s.speculative).toBeNull();
  });
});

describe('client self-check and validity', () => {
  it('flags the level client-limited from the client figures', () => {
    const s = summarizeLevel(level([r1], { client: { eventLoopDelayP99Ms: 48, cpuPercentOfOneCore: 55 } }));
    expect(s.client).toEqual({
      eventLoopDelayP99Ms: 48,
      cpuPercentOfOneCore: 55,
      clientLimited: true,
      reason: 'event-loop lag p99 48.0 ms > 10 ms',
    });
  });

  it('passes the validity verdict through', () => {
    const reasons = ['server restarted during the level (start time changed)'];
    expect(summarizeLevel(level([r1], { validity: { valid: false, reasons } })).validity).toEqual({
      valid: false,
      reasons,
    });
  });

  it('says what share of chunk gaps were events read together (0 ms), so a 0.00 ms ITL is explained', () => {
    // four events in one read (one timestamp), then one a real 20 ms later: 3 of 4 gaps are zero
    const one = (t: number) =>
      rec({
        sentMs: t,
        chunks: [
          [t + 10, 1],
          [t + 10, 1],
          [t + 10, 1],
          [t + 10, 1],
          [t + 30, 1],
        ],
      });
    const s = summarizeLevel(level(Array.from({ length: 12 }, (_, i) => one(i * 40))));
    expect(s.chunkItlZeroShare).toBeCloseTo(0.75, 9);
    expect(s.chunkItlMs?.percentiles.p50).toBe(0);
    const table = levelTable({ schema: 'benchgate.summary/1', runId: 'r', name: 'r', levels: [s] });
    expect(table).toMatch(/0\.00\*/);
    expect(table).toContain('c=4 75% of chunk gaps were 0 ms');
  });
});
