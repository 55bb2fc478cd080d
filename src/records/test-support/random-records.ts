// Seeded, varied request records for tests that compare two ways of summarising the same records:
// warmup, failures of several codes, multi-token (speculative) chunks, reasoning-first streams, missing
// server counts, verify steps on some requests. Times are spread over a few seconds so peak buckets fill.

import type { RequestErrorCode } from '../../core/errors.js';
import { seededRng } from '../../core/seeded-random.js';
import type { RequestRecord } from '../request-record.js';

const ERRORS: RequestErrorCode[] = ['BG_E_TTFT_TIMEOUT', 'BG_E_STREAM_TRUNCATED', 'BG_E_HTTP_STATUS'];

export function randomRecords(count: number, seed: number, levelIndex = 0, firstId = 0): RequestRecord[] {
  const rng = seededRng(seed);
  const out: RequestRecord[] = [];
  for (let i = 0; i < count; i++) {
    const scheduledMs = rng() * 4000;
    const sentMs = scheduledMs + (rng() < 0.3 ? rng() * 20 : 0);
    const failed = rng() < 0.08;
    const chunkMs: number[] = [];
    const chunkTokens: number[] = [];
    let t = sentMs + 20 + rng() * 200;
    const chunks = failed ? 0 : 1 + Math.floor(rng() * 30);
    for (let c = 0; c < chunks; c++) {
      chunkMs.push(t);
      chunkTokens.push(rng() < 0.2 ? 1 + Math.floor(rng() * 4) : 1);
      t += rng() * 40;
    }
    const tokens = chunkTokens.reduce((a, b) => a + b, 0);
    const serverCounts = rng() < 0.9;
    out.push({
      v: 1,
      id: firstId + i,
      levelIndex,
      warmup: i < 3,
      scheduledMs,
      sentMs,
      headersMs: sentMs + 5,
      chunkMs,
      chunkTokens,
      chunkTokenSource: serverCounts ? 'server-per-chunk' : 'one-per-chunk',
      firstContentMs: chunks > 1 && rng() < 0.3 ? chunkMs[1]! : (chunkMs[0] ?? null),
      endMs: t + 1,
      inputTokensServer: serverCounts ? 100 : null,
      inputTokensClient: rng() < 0.1 ? 101 : 100,
      outputTokensServer: serverCounts && !failed ? tokens : null,
      outputTokensClient: rng() < 0.05 ? tokens + 1 : tokens,
      requestedOutputTokens: 64,
      specVerifySteps: rng() < 0.5 && tokens > 0 ? Math.max(1, Math.round(tokens / 2.5)) : null,
      finishReason: failed ? null : 'length',
      httpStatus: 200,
      error: failed ? { code: ERRORS[i % ERRORS.length]!, message: 'test' } : null,
    });
  }
  return out;
}
