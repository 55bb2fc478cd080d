// The same simulated traffic seen two ways: benchgate's own records, and the JSONL SGLang's
// bench_serving (native backend) would write for those very chunks. Imported, the SGLang file must
// agree with benchgate on token ITL; filed as chunk ITL it was ~acceptance-length times off.

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { streamRequest } from '../client/stream-request.js';
import { planDefaultTimeouts } from '../client/test-support/timeouts.js';
import { sglangAdapter } from '../engines/sglang.js';
import { summarizeLevel } from '../metrics/level.js';
import { percentile } from '../metrics/percentile.js';
import type { RequestRecord } from '../records/request-record.js';
import { EAGLE3_TOPK1_ARGS, simulatorsClosedAfterEach } from '../sim/testing/fast-sim.js';
import { importSglang } from './import-result.js';

const { sim } = simulatorsClosedAfterEach();
const OUTPUT_TOKENS = 40;

/** Streams `n` native /generate requests, `inFlight` at a time, through benchgate's client. */
async function benchgateRecords(url: string, n: number, inFlight: number): Promise<RequestRecord[]> {
  const origin = performance.now();
  const records: RequestRecord[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const id = next++;
      const request = sglangAdapter.requestFor({
        api: 'native',
        model: 'm',
        prompt: `prompt number ${id} about the weather today`,
        maxTokens: OUTPUT_TOKENS,
        ignoreEos: true,
        temperature: 0,
        stream: true,
      });
      records.push(
        await streamRequest({
          baseUrl: url,
          request,
          originMs: origin,
          id,
          levelIndex: 0,
          warmup: false,
          requestedOutputTokens: OUTPUT_TOKENS,
          timeouts: planDefaultTimeouts(),
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return records.sort((a, b) => a.id - b.id);
}

/** bench_serving's async_request_sglang_generate + calculate_metrics over the same chunk arrivals. */
function benchServingLine(records: RequestRecord[]): string {
  const itls = records.map((r) => {
    const out: number[] = [];
    for (let i = 1; i < r.chunkMs.length; i++) {
      const gapS = (r.chunkMs[i] - r.chunkMs[i - 1]) / 1000;
      const k = r.chunkTokens[i];
      for (let j = 0; j < k; j++) out.push(gapS / k);
    }
    return out;
  });
  const all = itls.flat().map((s) => s * 1000);
  const mean = all.reduce((a, b) => a + b, 0) / all.length;
  const durationS =
    (Math.max(...records.map((r) => r.endMs)) - Math.min(...records.map((r) => r.sentMs))) / 1000;
  return JSON.stringify({
    backend: 'sglang',
    dataset_name: 'random',
    request_rate: 'inf',
    max_concurrency: 4,
    accept_length: 2.4,
    completed: records.length,
    duration: durationS,
    request_throughput: records.length / durationS,
    output_throughput: (records.length * OUTPUT_TOKENS) / durationS,
    median_ttft_ms: percentile(
      records.map((r) => r.chunkMs[0] - r.sentMs),
      50,
    ),
    mean_itl_ms: mean,
    median_itl_ms: percentile(all, 50),
    std_itl_ms: Math.sqrt(all.reduce((a, b) => a + (b - mean) ** 2, 0) / all.length),
    p95_itl_ms: percentile(all, 95),
    p99_itl_ms: percentile(all, 99),
    input_lens: records.map(() => 7),
    output_lens: records.map(() => OUTPUT_TOKENS),
    ttfts: records.map((r) => (r.chunkMs[0] - r.sentMs) / 1000),
    itls,
    errors: records.map(() => ''),
  }).replace('"inf"', 'Infinity');
}

describe('imported SGLang ITL against a benchgate run of the same traffic', () => {
  it('agrees on token ITL within 1% (aggregate and rebuilt from per-request details)', async () => {
    const { h } = await sim({ timeScale: 20, engineArgs: [...EAGLE3_TOPK1_ARGS] });
    const records = await benchgateRecords(h.url, 12, 4);
    expect(records.every((r) => r.error === null)).toBe(true);
    // speculative decoding really put several tokens in some chunks, so chunk and token ITL differ
    expect(Math.max(...records.flatMap((r) => r.chunkTokens))).toBeGreaterThan(1);
    const level = {
      levelIndex: 0,
      level: { kind: 'concurrency' as const, value: 4 },
      percentiles: [50, 95, 99],
      slo: {},
      inFlightAtEnd: 0,
    };
    const ours = summarizeLevel({ ...level, records }).tokenItlMs!;

    const imported = importSglang(benchServingLine(records), 'sglang.jsonl');
    expect(imported.manifest.source.itl).toBe('token');
    const theirs = imported.summary.levels[0].tokenItlMs!;
    expect(Math.abs(theirs.mean / ours.mean - 1)).toBeLessThan(0.01);
    expect(Math.abs(theirs.percentiles.p50! / ours.percentiles.p50! - 1)).toBeLessThan(0.01);
    expect(Math.abs(theirs.percentiles.p99! / ours.percentiles.p99! - 1)).toBeLessThan(0.01);

    const rebuilt = summarizeLevel({ ...level, records: imported.records });
    expect(Math.abs(rebuilt.tokenItlMs!.mean / ours.mean - 1)).toBeLessThan(0.01);
    expect(
      Math.abs(rebuilt.chunkItlMs!.mean / summarizeLevel({ ...level, records }).chunkItlMs!.mean - 1),
    ).toBeLessThan(0.01);
  });
});
