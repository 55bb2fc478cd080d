// One simulated generation request as the schedulers see it, the counters both schedulers keep, and
// the per-request server-side truth exposed at GET /_sim/requests.

import type { Rng } from '../core/seeded-random.js';

export type RequestState = 'queued' | 'running' | 'done' | 'aborted';

export interface SimRequest {
  id: string;
  /** Monotonic index (1-based) since the simulated process started; seeds the request's rng. */
  index: number;
  promptTokens: number;
  /** Prompt tokens found in the prefix cache at arrival: never prefilled, reported as cached_tokens. */
  cachedTokens: number;
  maxNewTokens: number;
  /** Prompt tokens already prefilled (chunked prefill). */
  prefilled: number;
  generated: number;
  state: RequestState;
  /** Draws generated token ids and speculative acceptance. */
  rng: Rng;
  /** Verify steps (speculative) or decode steps that produced tokens. */
  verifyCt: number;
  acceptedDraftTokens: number;
  /** Server-side truth, monotonic ms (performance.now()) and simulated seconds. */
  arrivalMs: number;
  arrivalSimS: number;
  firstTokenSimS: number | null;
  finishSimS: number | null;
  chunkWriteMs: number[];
  chunkTokens: number[];
  /** Called once per step that produced tokens for this request (ids of those tokens). */
  onTokens: (req: SimRequest, tokenIds: number[]) => void;
}

export interface SchedulerCounters {
  requestsFinished: number;
  promptTokensTotal: number;
  generationTokensTotal: number;
  /** Speculative: verify steps summed over requests, draft tokens proposed, accepted. */
  specVerifyCt: number;
  specDraftTokensTotal: number;
  specAcceptedTotal: number;
  /** Accepted draft tokens per draft position (vllm spec_decode_num_accepted_tokens_per_pos). */
  specAcceptedPerPos: number[];
  /** Latest decode-log-interval figures. */
  genThroughputTokS: number;
  lastAcceptLen: number;
  decodeSteps: number;
}

export function newCounters(): SchedulerCounters {
  return {
    requestsFinished: 0,
    promptTokensTotal: 0,
    generationTokensTotal: 0,
    specVerifyCt: 0,
    specDraftTokensTotal: 0,
    specAcceptedTotal: 0,
    specAcceptedPerPos: [],
    genThroughputTokS: 0,
    lastAcceptLen: 0,
    decodeSteps: 0,
  };
}

/** The scheduler contract shared by the roofline and fixed schedulers. */
export interface Scheduler {
  readonly counters: SchedulerCounters;
  submit(req: SimRequest): void;
  /** Removes a request (client went away); its KV is released at the next step. */
  abort(req: SimRequest): void;
  numRunning(): number;
  numQueued(): number;
  kvUsedTokens(): number;
  /** Current simulated time, seconds since the scheduler started. */
  simNowS(): number;
  /** Stops the loop; pending requests are left as they are. */
  stop(): void;
}

/** Random token ids for `n` generated tokens. */
export function drawTokenIds(rng: Rng, n: number, vocab: number): number[] {
  const ids = new Array<number>(n);
  for (let i = 0; i < n; i++) ids[i] = Math.floor(rng() * vocab);
  return ids;
}
