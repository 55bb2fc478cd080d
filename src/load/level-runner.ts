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
import { type ArrivalKind, arrivalGaps } from './arrivals.js';
import { type BackoffSpec, type ErrorStop, type ErrorStopSpec, FailurePolicy } from './failure-policy.js';
import { ownsArrival, type Shard, shareOf } from './shard.js';
import { SharedSlots } from './shared-slots.js';

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

const sleepUntil = (atMs: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const delay = atMs - performance.now();
    if (delay <= 0 || signal.aborted) return resolve();
    const t = setTimeout(done, delay);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** A counting semaphore whose waiters are served in arrival order. */
class Slots {
  private free: number;
  private readonly waiters: (() => void)[] = [];
  constructor(n: number) {
    this.free = n;
  }
  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((r) => this.waiters.push(r));
  }
  release(): void {
    const w = this.waiters.shift();
    if (w) w();
    else this.free++;
  }
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
  if (shape.warmup > 0 && !halted()) {
    await runPhase(shape, shape.warmup, null, true, sendOne, halted, halt.signal, opts.dueAtMs);
  }
  const measuredStartMs = opts.measureFrom ? await opts.measureFrom() : performance.now();
  const requests = shape.requests ?? (shape.durationMs === null ? 100 : null);
  const inFlightAtDeadline = await runPhase(
    shape,
    requests,
    shape.durationMs,
    false,
    sendOne,
    halted,
    halt.signal,
    opts.dueAtMs,
    measuredStartMs,
  );
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

type SendOne = (warmup: boolean, scheduledAtMs: number, stream: number | null) => Promise<number>;

/**
 * Sends up to `count` requests (null = unbounded) until `durationMs` passes, then waits for every
 * request that became due (queued ones included). Returns how many were queued or in flight when
 * the duration ran out (0 when the count ended the phase).
 */
async function runPhase(
  shape: LevelShape,
  count: number | null,
  durationMs: number | null,
  warmup: boolean,
  sendOne: SendOne,
  halted: () => boolean,
  haltSignal: AbortSignal,
  dueAtMs?: (stream: number) => number,
  startAtMs: number | null = null,
): Promise<number> {
  const start = startAtMs ?? performance.now();
  let issued = 0;
  let outstanding = 0;
  let inFlightAtDeadline = 0;
  let deadlinePassed = false;
  const wake = new AbortController();
  const onHalt = (): void => wake.abort();
  haltSignal.addEventListener('abort', onHalt, { once: true });
  if (haltSignal.aborted) wake.abort();
  let holdUntilMs = 0; // open loop: no send before this (back-off)
  const passDeadline = (): void => {
    if (deadlinePassed) return;
    deadlinePassed = true;
    inFlightAtDeadline = outstanding;
    wake.abort();
  };
  // The timer wakes sleepers; the clock is also read before every send, since a busy process fires
  // timers late and nothing may be sent after the deadline. A timer can also fire a fraction of a ms
  // early: then it is set again for the rest.
  let deadlineTimer: ReturnType<typeof setTimeout> | null = null;
  const armDeadline = (): void => {
    if (durationMs === null || deadlinePassed) return;
    const leftMs = start + durationMs - performance.now();
    if (leftMs <= 0) passDeadline();
    else deadlineTimer = setTimeout(armDeadline, leftMs);
  };
  armDeadline();
  const pastDeadline = (): boolean => {
    if (durationMs !== null && !deadlinePassed && performance.now() >= start + durationMs) passDeadline();
    return deadlinePassed;
  };
  const shard = shape.shard ?? null;
  // Closed loop: this shard's share of the requests; open loop: `count` bounds the whole schedule.
  // (split over the shards that have a stream: with fewer streams than shards, the others send nothing).
  const streams = Math.max(1, Math.round(shape.level.value));
  const withStreams = shard ? Math.min(streams, shard.count) : 1;
  const closedCount =
    count !== null && shard && shape.level.kind === 'concurrency'
      ? shard.index < withStreams
        ? shareOf(count, shard.index, withStreams)
        : 0
      : count;
  let arrivals = 0; // open loop: schedule positions walked, this shard's or not
  const mayStart = (): boolean =>
    !halted() &&
    !pastDeadline() &&
    (shape.level.kind === 'concurrency'
      ? closedCount === null || issued < closedCount
      : count === null || arrivals < count);
  const capTotal = shape.level.kind === 'rate' ? shape.level.maxConcurrency : null;
  const cap = !capTotal
    ? null
    : shape.sharedCap
      ? new SharedSlots(shape.sharedCap)
      : new Slots(shard ? Math.max(1, shareOf(capTotal, shard.index, shard.count)) : capTotal);
  // Pending sends only (settled ones leave the set), so a long level holds no per-request promise.
  const pending = new Set<Promise<number>>();
  let failure: { error: unknown } | null = null;
  const launch = (scheduledAtMs: number, stream: number | null): Promise<number> => {
    issued++;
    outstanding++;
    const p = (async () => {
      if (cap) await cap.acquire(); // time spent here is queue time: scheduledAtMs stays the due time
      try {
        // back-off hold (open loop): also queue time, the due time is kept
        while (!halted() && performance.now() < holdUntilMs) await sleepUntil(holdUntilMs, wake.signal);
        return halted() ? 0 : await sendOne(warmup, scheduledAtMs, stream);
      } finally {
        cap?.release();
        outstanding--;
      }
    })();
    pending.add(p);
    const settled = (): void => {
      pending.delete(p);
    };
    p.then(settled, (e: unknown) => {
      failure ??= { error: e };
      settled();
    });
    return p;
  };

  await sleepUntil(start, wake.signal); // a common start in the future (worker threads)
  if (shape.level.kind === 'concurrency') {
    const workers = shard ? shareOf(streams, shard.index, shard.count) : streams;
    const worker = async (w: number): Promise<void> => {
      const stream = shard ? w * shard.count + shard.index : w;
      while (mayStart()) {
        // think time (multi-turn): the request is due when it ends; a later wake-up is queue time
        let dueMs = performance.now();
        const thinkUntilMs = dueAtMs?.(stream) ?? 0;
        if (thinkUntilMs > dueMs) {
          // a timer may fire a fraction of a ms early: never send before the due time
          while (!wake.signal.aborted && performance.now() < thinkUntilMs)
            await sleepUntil(thinkUntilMs, wake.signal);
          if (!mayStart()) break;
          dueMs = thinkUntilMs;
        }
        const backoffMs = await launch(dueMs, stream);
        if (backoffMs > 0 && mayStart()) await sleepUntil(performance.now() + backoffMs, wake.signal);
      }
    };
    await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  } else {
    const seed = shape.seed * 31 + shape.levelIndex * 2 + (warmup ? 1 : 0);
    const drawn = arrivalGaps(shape.arrival, shape.level.value, seed, shape.burstiness);
    const replay = warmup ? null : (shape.scheduleMs ?? null);
    // a replayed schedule gives the next send's offset; its end ends the phase
    const gap = replay
      ? () => (arrivals < replay.length ? start + replay[arrivals] - dueAt : Number.POSITIVE_INFINITY)
      : drawn;
    let dueAt = start;
    while (mayStart()) {
      await sleepUntil(dueAt, wake.signal);
      if (!mayStart()) break;
      if (!shard || ownsArrival(arrivals, shard))
        void launch(dueAt, null).then((backoffMs) => {
          if (backoffMs > 0) holdUntilMs = Math.max(holdUntilMs, performance.now() + backoffMs);
        });
      arrivals++;
      dueAt += gap();
    }
  }
  while (pending.size > 0) await Promise.allSettled(pending);
  if (failure) throw (failure as { error: unknown }).error;
  if (deadlineTimer) clearTimeout(deadlineTimer);
  haltSignal.removeEventListener('abort', onHalt);
  return inFlightAtDeadline;
}
