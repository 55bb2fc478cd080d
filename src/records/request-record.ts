// The request record: what one streamed request became. A leaf module: client writes records;
// metrics, results and report read them. Every metric derives from these raw monotonic timestamps, so each tool's metric definition can be reproduced side by side.
// All `*Ms` times are milliseconds since the run's monotonic anchor (see core/clock.ts).
// This shape is the `requests.jsonl` line format (versioned by RECORD_VERSION).

import type { RequestErrorCode } from '../core/errors.js';

export const RECORD_VERSION = 1;

/** Where the per-chunk token counts came from. */
export type ChunkTokenSource =
  /** Server counted tokens per chunk (SGLang native meta_info.completion_tokens deltas, continuous_usage_stats). */
  | 'server-per-chunk'
  /** Only a final server total; spread over chunks by the client's per-chunk estimate, scaled to the total. */
  | 'server-total-distributed'
  /** No server count at all: one token per token-carrying chunk (labelled as an approximation). */
  | 'one-per-chunk';

export interface RequestRecord {
  v: typeof RECORD_VERSION;
  /** Sequential id within the run. */
  id: number;
  /** Index of the level in the plan's level list. */
  levelIndex: number;
  /** Warmup requests are recorded but excluded from every metric. */
  warmup: boolean;
  /** When the schedule wanted the request sent (open loop) or when a slot freed (closed loop). */
  scheduledMs: number;
  /** When the request's bytes were handed to the socket. sentMs - scheduledMs is client queue time. */
  sentMs: number;
  /** Response headers received; null when the connection failed. */
  headersMs: number | null;
  /** Arrival time of every chunk that carried at least one token (content or reasoning). */
  chunkMs: number[];
  /** Tokens carried by each entry of chunkMs (same length). */
  chunkTokens: number[];
  chunkTokenSource: ChunkTokenSource;
  /** First chunk with non-empty visible content (not reasoning); null if none. */
  firstContentMs: number | null;
  /** When the response ended (finish received, error, or abort). */
  endMs: number;
  /** Prompt tokens: server-reported (usage / meta_info) and the client's own count. */
  inputTokensServer: number | null;
  inputTokensClient: number | null;
  /** Output tokens: server-reported and client-counted (sum of chunkTokens under the client's method). */
  outputTokensServer: number | null;
  outputTokensClient: number | null;
  /**
   * Prompt tokens the server served from its prefix cache, when it said so (SGLang meta_info.cached_tokens,
   * usage.prompt_tokens_details.cached_tokens, llama.cpp timings.cache_n); absent or null when it did not.
   */
  cachedInputTokens?: number | null;
  /** Output tokens the request asked for (max_tokens). */
  requestedOutputTokens: number;
  /** Speculative verify steps for this request when the server reports them (SGLang meta_info.spec_verify_ct). */
  specVerifySteps: number | null;
  /** workload.kind multi_turn: the conversation this turn belongs to (unique within the run's level). */
  conversationId?: string;
  /** workload.kind multi_turn: the turn's position in its conversation, 1-based. */
  turn?: number;
  /**
   * workload.kind multi_turn: tokens of the whole history sent (every earlier user message and reply, plus
   * this turn's message), as the client counted them (replies by the server's output count); the server's
   * count, chat template included, is inputTokensServer.
   */
  historyTokens?: number;
  /**
   * Times the request was sent again on a new connection because the kept-alive one it was written to
   * had been closed by the server before any answer byte; absent when it was not (a retry is no failure).
   */
  retries?: number;
  finishReason: string | null;
  httpStatus: number | null;
  error: { code: RequestErrorCode; message: string } | null;
}

/** The output token count metrics should use: the server's when present, else the client's. */
export function outputTokens(r: RequestRecord): number {
  return r.outputTokensServer ?? r.outputTokensClient ?? r.chunkTokens.reduce((a, b) => a + b, 0);
}

export function inputTokens(r: RequestRecord): number {
  return r.inputTokensServer ?? r.inputTokensClient ?? 0;
}

export function succeeded(r: RequestRecord): boolean {
  return r.error === null;
}
