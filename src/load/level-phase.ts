// One phase of a level (warmup, or the measured phase): the sends themselves, closed loop (each stream
// sends its next request when its previous one ends, after any think time or back-off) or open loop
// (a seeded or replayed arrival schedule, an optional cap whose wait is queue time, a back-off hold
// that keeps each due time). The phase ends at its request count or its deadline (nothing is sent
// after it; what is in flight then is awaited and counted), or when the level is halted.

import { performance } from 'node:perf_hooks';
import { arrivalGaps } from './arrivals.js';
import type { LevelShape } from './level-runner.js';
import { ownsArrival, shareOf } from './shard.js';
import { SharedSlots } from './shared-slots.js';

/** Sends one request; resolves to the back-off (ms) to wait before this sender's next send. */
export type SendOne = (warmup: boolean, scheduledAtMs: number, stream: number | null) => Promise<number>;

export interface PhaseSpec {
  shape: LevelShape;
  /** Requests to send (null = unbounded). */
  count: number | null;
  durationMs: number | null;
  warmup: boolean;
  sendOne: SendOne;
  halted: () => boolean;
  haltSignal: AbortSignal;
  /** Closed loop: absolute ms a stream's next request is due (multi-turn think time). */
  dueAtMs?: (stream: number) => number;
  /** Absolute ms the phase starts at (a common start in the future); default now. */
  startAtMs?: number | null;
}

/**
 * Resolves at `atMs` (performance.now() scale), never before it, or when `signal` aborts. A timer may
 * fire up to 1 ms early (libuv's loop clock counts whole milliseconds), so the last millisecond is
 * polled: a common start or a back-off is never cut short.
 */
export const sleepUntil = (atMs: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (atMs - performance.now() <= 0 || signal.aborted) return resolve();
    let timer: NodeJS.Timeout | null = null;
    let poll: NodeJS.Immediate | null = null;
    const done = (): void => {
      if (timer) clearTimeout(timer);
      if (poll) clearImmediate(poll);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const wait = (): void => {
      const delay = atMs - performance.now();
      if (delay <= 0) done();
      else if (delay > 1) timer = setTimeout(wait, delay);
      else poll = setImmediate(wait);
    };
    signal.addEventListener('abort', done, { once: true });
    wait();
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

/** The phase's deadline: a timer wakes sleepers, and the clock is read before every send as well. */
class Deadline {
  passed = false;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly endMs: number | null,
    private readonly onPass: () => void,
  ) {}

  /** A busy process fires timers late, and one can fire a fraction of a ms early: then it is set again. */
  arm(): void {
    if (this.endMs === null || this.passed) return;
    const leftMs = this.endMs - performance.now();
    if (leftMs <= 0) this.pass();
    else this.timer = setTimeout(() => this.arm(), leftMs);
  }

  /** True once the deadline has passed (read from the clock: nothing may be sent after it). */
  reached(): boolean {
    if (this.endMs !== null && !this.passed && performance.now() >= this.endMs) this.pass();
    return this.passed;
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private pass(): void {
    if (this.passed) return;
    this.passed = true;
    this.onPass();
  }
}

class Phase {
  private readonly start: number;
  private readonly wake = new AbortController();
  private readonly deadline: Deadline;
  private readonly shard: LevelShape['shard'];
  private readonly streams: number;
  /** Closed loop: this shard's share of the requests. */
  private readonly closedCount: number | null;
  private readonly cap: Slots | SharedSlots | null;
  /** Pending sends only (settled ones leave the set), so a long level holds no per-request promise. */
  private readonly pending = new Set<Promise<number>>();
  private failure: { error: unknown } | null = null;
  private issued = 0;
  private outstanding = 0;
  private inFlightAtDeadline = 0;
  /** Open loop: schedule positions walked, this shard's or not. */
  private arrivals = 0;
  /** Open loop: no send before this (back-off). */
  private holdUntilMs = 0;
  private readonly onHalt = (): void => this.wake.abort();

  constructor(private readonly p: PhaseSpec) {
    const { shape } = p;
    this.start = p.startAtMs ?? performance.now();
    this.deadline = new Deadline(p.durationMs === null ? null : this.start + p.durationMs, () => {
      this.inFlightAtDeadline = this.outstanding;
      this.wake.abort();
    });
    this.shard = shape.shard ?? null;
    this.streams = Math.max(1, Math.round(shape.level.value));
    // split over the shards that have a stream: with fewer streams than shards, the others send nothing
    const withStreams = this.shard ? Math.min(this.streams, this.shard.count) : 1;
    this.closedCount =
      p.count !== null && this.shard && shape.level.kind === 'concurrency'
        ? this.shard.index < withStreams
          ? shareOf(p.count, this.shard.index, withStreams)
          : 0
        : p.count;
    const capTotal = shape.level.kind === 'rate' ? shape.level.maxConcurrency : null;
    const shard = this.shard;
    this.cap = !capTotal
      ? null
      : shape.sharedCap
        ? new SharedSlots(shape.sharedCap)
        : new Slots(shard ? Math.max(1, shareOf(capTotal, shard.index, shard.count)) : capTotal);
  }

  async run(): Promise<number> {
    this.p.haltSignal.addEventListener('abort', this.onHalt, { once: true });
    if (this.p.haltSignal.aborted) this.wake.abort();
    this.deadline.arm();
    await sleepUntil(this.start, this.wake.signal); // a common start in the future (worker threads)
    if (this.p.shape.level.kind === 'concurrency') await this.closedLoop();
    else await this.openLoop();
    while (this.pending.size > 0) await Promise.allSettled(this.pending);
    if (this.failure) throw this.failure.error;
    this.deadline.clear();
    this.p.haltSignal.removeEventListener('abort', this.onHalt);
    return this.inFlightAtDeadline;
  }

  /** Closed loop: this shard's count of requests; open loop: `count` bounds the whole schedule. */
  private mayStart(): boolean {
    const { p } = this;
    if (p.halted() || this.deadline.reached()) return false;
    if (p.shape.level.kind === 'concurrency')
      return this.closedCount === null || this.issued < this.closedCount;
    return p.count === null || this.arrivals < p.count;
  }

  private launch(scheduledAtMs: number, stream: number | null): Promise<number> {
    this.issued++;
    this.outstanding++;
    const send = async (): Promise<number> => {
      if (this.cap) await this.cap.acquire(); // time spent here is queue time: scheduledAtMs stays the due time
      try {
        // back-off hold (open loop): also queue time, the due time is kept
        while (!this.p.halted() && performance.now() < this.holdUntilMs)
          await sleepUntil(this.holdUntilMs, this.wake.signal);
        return this.p.halted() ? 0 : await this.p.sendOne(this.p.warmup, scheduledAtMs, stream);
      } finally {
        this.cap?.release();
        this.outstanding--;
      }
    };
    const sent = send();
    this.pending.add(sent);
    sent.then(
      () => this.pending.delete(sent),
      (e: unknown) => {
        this.failure ??= { error: e };
        this.pending.delete(sent);
      },
    );
    return sent;
  }

  private async closedLoop(): Promise<void> {
    const shard = this.shard;
    const workers = shard ? shareOf(this.streams, shard.index, shard.count) : this.streams;
    await Promise.all(
      Array.from({ length: workers }, (_, w) => this.stream(shard ? w * shard.count + shard.index : w)),
    );
  }

  /** One closed-loop stream (a user, with multi-turn): its next send when its last one ended. */
  private async stream(stream: number): Promise<void> {
    const wake = this.wake.signal;
    while (this.mayStart()) {
      // think time (multi-turn): the request is due when it ends; a later wake-up is queue time
      let dueMs = performance.now();
      const thinkUntilMs = this.p.dueAtMs?.(stream) ?? 0;
      if (thinkUntilMs > dueMs) {
        // a timer may fire a fraction of a ms early: never send before the due time
        while (!wake.aborted && performance.now() < thinkUntilMs) await sleepUntil(thinkUntilMs, wake);
        if (!this.mayStart()) break;
        dueMs = thinkUntilMs;
      }
      const backoffMs = await this.launch(dueMs, stream);
      if (backoffMs > 0 && this.mayStart()) await sleepUntil(performance.now() + backoffMs, wake);
    }
  }

  private async openLoop(): Promise<void> {
    const { shape, warmup } = this.p;
    const seed = shape.seed * 31 + shape.levelIndex * 2 + (warmup ? 1 : 0);
    const drawn = arrivalGaps(shape.arrival, shape.level.value, seed, shape.burstiness);
    const replay = warmup ? null : (shape.scheduleMs ?? null);
    let dueAt = this.start;
    // a replayed schedule gives the next send's offset; its end ends the phase
    const gap = replay
      ? () =>
          this.arrivals < replay.length
            ? this.start + replay[this.arrivals]! - dueAt
            : Number.POSITIVE_INFINITY
      : drawn;
    while (this.mayStart()) {
      await sleepUntil(dueAt, this.wake.signal);
      if (!this.mayStart()) break;
      if (!this.shard || ownsArrival(this.arrivals, this.shard))
        void this.launch(dueAt, null).then((backoffMs) => {
          if (backoffMs > 0) this.holdUntilMs = Math.max(this.holdUntilMs, performance.now() + backoffMs);
        });
      this.arrivals++;
      dueAt += gap();
    }
  }
}

/**
 * Sends up to `count` requests (null = unbounded) until `durationMs` passes, then waits for every
 * request that became due (queued ones included). Returns how many were queued or in flight when
 * the duration ran out (0 when the count ended the phase).
 */
export function runPhase(spec: PhaseSpec): Promise<number> {
  return new Phase(spec).run();
}
