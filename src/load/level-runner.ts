// Drives one load level. Closed loop (kind concurrency): N workers, each sends its next request as
// soon as its previous one ends. Open loop (kind rate): a seeded arrival schedule decides when each
// request is due, regardless of completions; an optional cap delays sends, and that wait shows as
// queue time (scheduledMs → sentMs), so coordinated omission cannot hide latency.
//
// Closed loop with think time (multi-turn, conversation.ts): a stream's next request waits until
// `dueAtMs` says it is due and is scheduled at that time, so think time is neither queue time nor latency.
//
// Warmup requests run first under the same load shape and are all finished before measuring starts.
// The measured phase ends when `requests` have been sent, or when `durationMs` has elapsed (no new
// sends after it), whichever comes first. Requests still in flight at that moment are awaited and
// recorded like any other (they were sent inside the window); their number is `inFlightAtEnd`.
// On interrupt (signal) in-flight requests are aborted and NOT recorded: only complete records count.
// Sharded (shape.shard, see shard.ts): closed loop runs this shard's share of the streams, requests and
// warmup; open loop walks the whole seeded schedule and sends only the arrivals this shard owns.
// Worker threads (worker-pool.ts) each run one share; `measureFrom` holds the measured phase until every
// worker has drained its warmup and gives all of them one common start; `halt` is the coordinator's
// error-rate stop, seen across all workers' records.
//
// Failures (failure-policy.ts): after a connect error, HTTP 5xx/429 or a reset, the next send waits a
// capped exponential back-off with jitter. Closed loop: the worker that saw the failure waits before its
// next send (its think time, not queue time: the request is due when it is sent). Open loop: the
// schedule is kept; a request due while the back-off holds waits until it ends and keeps its due time,
// so the wait shows as queue time. A level whose error rate passes the plan's threshold stops sending;
// requests in flight finish and are recorded; `errorStop` says why.

import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { LevelKey } from '../records/level-key.js';
import type { RequestRecord } from '../records/request-record.js';
import type { ArrivalKind } from './arrivals.js';
import { type BackoffSpec, type ErrorStop, type ErrorStopSpec, FailurePolicy } from './failure-policy.js';
import { runPhase, type SendOne } from './level-phase.js';
import type { Shard } from './shard.js';

export interface LevelShape {
  levelIndex: number;
  level: LevelKey;
  /** Measured requests; null = only duration bounds the level. */
  requests: number | null;
  durationMs: number | null;
  warmup: number;
  arrival: ArrivalKind;
  burstiness: number;
  seed: number;
  /** This process runs one share of the level (absent: all of it). */
  shard?: Pick<Shard, 'index' | 'count'> | null;
  /** Measured phase of a replayed trace: send offsets (ms from the phase start) instead of drawn gaps. */
  scheduleMs?: number[] | null;
  /** Back-off after failures that say the server is unavailable; null = send again at once. */
  backoff?: BackoffSpec | null;
  /** Error-rate stop; null = never stop on errors. */
  errorStop?: ErrorStopSpec | null;
  /** Open loop with a cap, over worker threads: the level's free slots, shared (shared-slots.ts). */
  sharedCap?: Int32Array | null;
}

export interface SendArgs {
  /** Position within the level (warmup first), used to pick the prompt. */
  index: number;
  warmup: boolean;
  /** Absolute monotonic ms the request was due. */
  scheduledAtMs: number;
  /** Closed loop: the stream (user) sending it, unique across shards; null in open loop. */
  stream: number | null;
  signal: AbortSignal;
}

export interface LevelRunResult {
  records: RequestRecord[];
  inFlightAtEnd: number;
  interrupted: boolean;
  /** Absolute monotonic ms of the measured phase's start and end. */
  measuredStartMs: number;
  measuredEndMs: number;
  /** Set when the level stopped because its error rate passed the threshold. */
  errorStop: ErrorStop | null;
}

export interface LevelRunOptions {
  shape: LevelShape;
  send: (args: SendArgs) => Promise<RequestRecord>;
  /** Called with every complete record (warmup included) as it arrives. */
  onRecord?: (r: RequestRecord) => void;
  /** Interrupt: stop sending, abort in-flight requests. */
  signal?: AbortSignal;
  /** Stop sending, let in-flight requests finish (a coordinator's error-rate stop, worker-pool.ts). */
  halt?: AbortSignal;
  /**
   * Called once warmup is drained; resolves to the monotonic ms (performance.now() scale) the measured
   * phase starts at, waited for before its first send (worker threads start together). Default: now.
   */
  measureFrom?: () => Promise<number>;
  /**
   * Keep every record in `records` (default true). False: records only reach `onRecord` (which stores
   * them), `records` stays empty, and the runner's memory is bounded by the requests in flight.
   */
  retainRecords?: boolean;
  /**
   * Closed loop: absolute monotonic ms a stream's next request is due (multi-turn think time); the
   * stream waits until then and that due time is its scheduled time. Absent: each is due at once.
   */
  dueAtMs?: (stream: number) => number;
}

interface PhaseState {
  records: RequestRecord[];
  /** Requests cut off by an interrupt (not recorded). */
  abortedByInterrupt: number;
}

export async function runLevel(opts: LevelRunOptions): Promise<LevelRunResult> {
  const { shape } = opts;
  const stop = new AbortController(); // aborts in-flight requests on interrupt
  setMaxListeners(0, stop.signal); // one listener per in-flight request
  const onInterrupt = (): void => stop.abort();
  opts.signal?.addEventListener('abort', onInterrupt, { once: true });
  const state: PhaseState = { records: [], abortedByInterrupt: 0 };
  const policy = new FailurePolicy(
    shape.backoff ?? null,
    shape.errorStop ?? null,
    shape.seed * 7 + shape.levelIndex,
  );
  const halt = new AbortController(); // no new sends: interrupt or error-rate stop
  setMaxListeners(0, halt.signal);
  const onHalt = (): void => halt.abort();
  opts.signal?.addEventListener('abort', onHalt, { once: true });
  opts.halt?.addEventListener('abort', onHalt, { once: true });
  if (opts.signal?.aborted || opts.halt?.aborted) halt.abort();
  let index = 0;

  const sendOne: SendOne = async (warmup, scheduledAtMs, stream) => {
    const i = index++;
    const r = await opts.send({ index: i, warmup, scheduledAtMs, stream, signal: stop.signal });
    if (stop.signal.aborted && r.error?.code === 'BG_E_ABORTED') {
      state.abortedByInterrupt++; // interrupted: not a complete record
      return 0;
    }
    if (opts.retainRecords !== false) state.records.push(r);
    opts.onRecord?.(r);
    const delayMs = policy.observe(r);
    if (policy.stopped) halt.abort();
    return delayMs;
  };

  const interrupted = (): boolean => opts.signal?.aborted === true;
  const halted = (): boolean => halt.signal.aborted;

  // warmup: same shape, bounded by count only, fully drained
  const phase = { shape, sendOne, halted, haltSignal: halt.signal, dueAtMs: opts.dueAtMs };
  if (shape.warmup > 0 && !halted()) {
    await runPhase({ ...phase, count: shape.warmup, durationMs: null, warmup: true });
  }
  const measuredStartMs = opts.measureFrom ? await opts.measureFrom() : performance.now();
  const requests = shape.requests ?? (shape.durationMs === null ? 100 : null);
  const inFlightAtDeadline = await runPhase({
    ...phase,
    count: requests,
    durationMs: shape.durationMs,
    warmup: false,
    startAtMs: measuredStartMs,
  });
  const measuredEndMs = performance.now();
  opts.signal?.removeEventListener('abort', onInterrupt);
  opts.signal?.removeEventListener('abort', onHalt);
  opts.halt?.removeEventListener('abort', onHalt);
  return {
    records: state.records,
    inFlightAtEnd: interrupted() ? state.abortedByInterrupt : inFlightAtDeadline,
    interrupted: interrupted(),
    measuredStartMs,
    measuredEndMs,
    errorStop: policy.stopped,
  };
}
