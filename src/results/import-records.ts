// Request records rebuilt from another tool's per-request details (SGLang --output-details, vLLM
// --save-detailed): send time, first token, one chunk per ITL gap, the tool's token counts. These give
// an imported run its bootstrap confidence intervals.

import { extent } from '../core/extent.js';
import type { RequestRecord } from '../records/request-record.js';
import type { ResultFields } from './import-fields.js';

/** The per-request lists a result carries (each null when absent), checked to have one entry per request. */
export function requestLists(f: ResultFields) {
  const d = {
    inputLens: f.counts('input_lens'),
    outputLens: f.counts('output_lens'),
    ttfts: f.numbers('ttfts'),
    itls: f.numberLists('itls'),
    errors: f.texts('errors'),
    starts: f.numbers('start_times'),
  };
  f.sameLength({
    ttfts: d.ttfts,
    itls: d.itls,
    output_lens: d.outputLens,
    input_lens: d.inputLens,
    errors: d.errors,
    start_times: d.starts,
  });
  return d;
}

/** `tokens` spread evenly over `chunks` chunks, the remainder on the last. */
function spreadTokens(tokens: number, chunks: number): number[] {
  const per = Math.floor(tokens / chunks);
  return Array.from({ length: chunks }, (_, k) => (k === chunks - 1 ? tokens - per * (chunks - 1) : per));
}

/** The first chunk carries what the counted later chunks did not (at least one token). */
function countedChunkTokens(tokens: number, later: number[]): number[] {
  let rest = 0;
  for (const t of later) rest += t;
  return [Math.max(1, tokens - rest), ...later];
}

/**
 * Per-token ITL entries back into chunk gaps: SGLang's native backend writes a chunk of k tokens as k
 * equal entries (gap / k), so each run of equal consecutive entries is one chunk.
 */
export function chunksFromPerTokenItls(perToken: number[]): { gapsS: number[]; tokens: number[] } {
  const gapsS: number[] = [];
  const tokens: number[] = [];
  for (let i = 0; i < perToken.length; ) {
    let j = i + 1;
    while (j < perToken.length && perToken[j] === perToken[i]) j++;
    gapsS.push(perToken[i] * (j - i));
    tokens.push(j - i);
    i = j;
  }
  return { gapsS, tokens };
}

export interface RequestDetails {
  ttftsS: number[];
  itlsS: number[][];
  outputLens: number[];
  inputLens: number[] | null;
  errors: string[] | null;
  startsS: number[] | null;
  /** Tokens each ITL gap's chunk carried (the first chunk gets the rest); null: spread evenly. */
  gapTokens?: number[][] | null;
}

/** One rebuilt record: sent at `sentMs`, first token after the TTFT, then one chunk per gap. */
function recordOf(
  d: RequestDetails,
  i: number,
  id: number,
  levelIndex: number,
  sentMs: number,
): RequestRecord {
  const err = d.errors?.[i] ?? '';
  const chunkMs = [sentMs + d.ttftsS[i] * 1000];
  for (const g of d.itlsS[i] ?? []) chunkMs.push(chunkMs[chunkMs.length - 1] + g * 1000);
  const tokens = d.outputLens[i] ?? 0;
  const counted = d.gapTokens?.[i];
  const chunkTokens = counted ? countedChunkTokens(tokens, counted) : spreadTokens(tokens, chunkMs.length);
  const ok = err === '' && tokens > 0 && d.ttftsS[i] > 0;
  return {
    v: 1,
    id,
    levelIndex,
    warmup: false,
    scheduledMs: sentMs,
    sentMs,
    headersMs: null,
    chunkMs: ok ? chunkMs : [],
    chunkTokens: ok ? chunkTokens : [],
    chunkTokenSource: counted ? 'server-per-chunk' : 'server-total-distributed',
    firstContentMs: ok ? chunkMs[0] : null,
    endMs: chunkMs[chunkMs.length - 1],
    inputTokensServer: d.inputLens?.[i] ?? null,
    inputTokensClient: null,
    outputTokensServer: ok ? tokens : null,
    outputTokensClient: null,
    requestedOutputTokens: tokens,
    specVerifySteps: null,
    finishReason: ok ? 'imported' : null,
    httpStatus: null,
    error: ok
      ? null
      : { code: 'BG_E_HTTP_STATUS', message: `imported failure: ${err.slice(0, 200) || 'no tokens'}` },
  };
}

/**
 * Records for each request of `d` (seconds): sent at its start time relative to the first (0 when the
 * tool kept none), appended to `out` one by one (push(...records) overflows the call stack near 100k);
 * ids continue from `out.length`.
 */
export function appendRecordsFromDetails(out: RequestRecord[], levelIndex: number, d: RequestDetails): void {
  const firstId = out.length;
  const t0 = d.startsS?.length ? extent(d.startsS).min : 0;
  for (let i = 0; i < d.ttftsS.length; i++) {
    const sentMs = d.startsS ? (d.startsS[i] - t0) * 1000 : 0;
    out.push(recordOf(d, i, firstId + i, levelIndex, sentMs));
  }
}
