// One level sent by N worker threads (`--workers N`), so the client is not bounded by one core's event
// loop. This thread coordinates; each worker (level-worker.ts) runs the level runner on its own share
// (load/shard.ts subShard: closed loop splits streams and requests exactly, open loop walks the whole
// seeded schedule and sends the arrivals it owns) and posts each complete record here. Here alone:
// record ids are assigned and records handed to `onRecord` (the run store's single writer), the
// error-rate stop is judged over all workers' records, and interrupts are forwarded. Every worker drains
// its warmup, then all start the measured phase at one time on the shared clock; the measured window is
// that start to the last worker's end. An open-loop cap is one counter shared by all workers. A worker that throws or exits early fails the level with
// BG_E_WORKER after the other workers are stopped: never a hang. The watchdog (pool-watchdog.ts) ends a
// worker whose event loop stops turning (no heartbeat: a busy loop) the same way, and an interrupt ends
// workers that do not stop within a grace, so the first Ctrl-C always stops the level.

import type { Worker } from 'node:worker_threads';
import { BenchgateError, ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { sharedNowMs, threadClock } from '../core/shared-clock.js';
import type { RequestRecord } from '../records/request-record.js';
import { FailurePolicy } from './failure-policy.js';
import type { LevelRunResult, LevelShape } from './level-runner.js';
import { INTERRUPT_GRACE_MS, PoolWatchdog, WORKER_SILENCE_LIMIT_MS } from './pool-watchdog.js';
import { type PooledSelfCheckReading, worstOf } from './self-check.js';
import { shareOf, subShard } from './shard.js';
import { SharedSlots } from './shared-slots.js';
import { spawnWorker } from './spawn-worker.js';
import type { FromWorker, ToWorker, WorkerJob } from './worker-protocol.js';

/** How far ahead of "all warmed" the common start is set, so every worker has the message in time. */
export const COMMON_START_MARGIN_MS = 20;

export interface PoolLevelOptions {
  workers: number;
  shape: LevelShape;
  /** Everything of a WorkerJob that is the same for every worker. */
  job: Omit<WorkerJob, 'workerIndex' | 'workerCount' | 'shape' | 'preconnect'>;
  /** Keep-alive connections the level wants in all (split over the workers). */
  preconnect: number;
  /** Every complete record, warmup included, in arrival order (its id already assigned). */
  onRecord: (r: RequestRecord) => void;
  nextId: () => number;
  /**
   * Called once every worker has drained its warmup; the common start is set, and the workers let go,
   * when it has resolved (the prefix-cache counters' "before" is read then).
   */
  onMeasuredStart?: () => Promise<void> | void;
  signal?: AbortSignal;
  /** Called with each worker as it starts (tests use it to probe a worker's clock). */
  onWorker?: (w: Worker, index: number) => void;
  /** A worker silent this long (no heartbeat) fails the level; default WORKER_SILENCE_LIMIT_MS. */
  silenceLimitMs?: number;
  /** After an interrupt, workers not stopped within this are ended; default INTERRUPT_GRACE_MS. */
  interruptGraceMs?: number;
}

export interface PoolLevelResult extends LevelRunResult {
  self: PooledSelfCheckReading;
}

/** The worker count for `load.workers`: a number as given, `auto` = cores − 1 (at least 1). */
export function resolveWorkerCount(workers: number | 'auto', cores: number): number {
  return workers === 'auto' ? Math.max(1, cores - 1) : workers;
}

function workerFailure(index: number, m: { code: string | null; message: string; details: string[] }) {
  const code = m.code !== null && m.code in ERROR_CODES ? (m.code as ErrorCode) : 'BG_E_WORKER';
  return new BenchgateError(
    code,
    code === 'BG_E_WORKER' ? `load worker ${index} failed: ${m.message}` : m.message,
    { details: m.details },
  );
}

type Done = Extract<FromWorker, { t: 'done' }>;

/** Starts the level's workers, each with its share of the level and of the open-loop cap. */
function startWorkers(o: PoolLevelOptions): Worker[] {
  const n = o.workers;
  // an open-loop cap holds across all workers, as in one thread (a Kubernetes shard: its share of it)
  const capTotal = o.shape.level.kind === 'rate' ? o.shape.level.maxConcurrency : null;
  const pod = o.shape.shard ?? null;
  const capHere = capTotal && pod ? Math.max(1, shareOf(capTotal, pod.index, pod.count)) : capTotal;
  const sharedCap = capHere ? SharedSlots.cell(capHere) : null;
  return Array.from({ length: n }, (_, w) => {
    const job: WorkerJob = {
      ...o.job,
      workerIndex: w,
      workerCount: n,
      shape: { ...o.shape, shard: subShard(o.shape.shard ?? null, w, n), errorStop: null, sharedCap },
      preconnect: shareOf(o.preconnect, w, n),
    };
    const t = spawnWorker(import.meta.url, 'level-worker', job);
    o.onWorker?.(t, w);
    return t;
  });
}

/** One level over the workers: their messages, the error-rate stop, the watchdog, the outcome. */
class PoolRun {
  private readonly clock = threadClock();
  private readonly policy: FailurePolicy;
  private readonly done: (Done | null)[];
  private readonly alive: Set<Worker>;
  private readonly watchdog: PoolWatchdog;
  private warmed = 0;
  private exited = 0;
  private halted = false;
  /** The first error: a worker's, or the record writer's (a full disk stops the level as in one thread). */
  private failure: { error: unknown } | null = null;
  private startSharedMs: number | null = null;
  private readonly onInterrupt = (): void => {
    this.broadcast({ t: 'interrupt' });
    this.watchdog.interrupted();
  };

  constructor(
    private readonly o: PoolLevelOptions,
    private readonly threads: Worker[],
    private readonly settle: { resolve(r: PoolLevelResult): void; reject(e: unknown): void },
  ) {
    this.policy = new FailurePolicy(null, o.shape.errorStop ?? null, 0);
    this.done = threads.map(() => null);
    this.alive = new Set(threads);
    this.watchdog = new PoolWatchdog(threads.length, {
      silenceLimitMs: o.silenceLimitMs ?? WORKER_SILENCE_LIMIT_MS,
      interruptGraceMs: o.interruptGraceMs ?? INTERRUPT_GRACE_MS,
      running: (w) => this.done[w] === null && this.alive.has(this.threads[w]!),
      silent: (w, ms) =>
        this.fail(
          workerFailure(w, {
            code: null,
            message: `it stopped answering for ${(ms / 1000).toFixed(0)} s (its event loop is blocked, a busy loop or a hang), so the level is stopped`,
            details: [],
          }),
        ),
      graceOver: () => this.abandon(),
    });
  }

  start(): void {
    this.threads.forEach((t, w) => {
      t.on('message', (m: FromWorker) => this.onMessage(w, t, m));
      t.on('error', (e: Error) =>
        this.fail(workerFailure(w, { code: null, message: e.message, details: [] })),
      );
      t.on('exit', (code) => this.onExit(w, t, code));
    });
    this.o.signal?.addEventListener('abort', this.onInterrupt, { once: true });
    if (this.o.signal?.aborted) this.onInterrupt();
  }

  private broadcast(m: ToWorker): void {
    for (const t of this.alive) t.postMessage(m);
  }

  private fail(e: unknown): void {
    if (this.failure) return;
    this.failure = { error: e };
    for (const t of this.alive) void t.terminate();
  }

  /** Interrupted and the grace is over: workers that did not stop are ended; what finished counts. */
  private abandon(): void {
    for (const t of this.alive) void t.terminate();
  }

  private onMessage(w: number, t: Worker, m: FromWorker): void {
    this.watchdog.heard(w);
    if (this.failure) return;
    if (m.t === 'record') this.onRecord(m.record);
    else if (m.t === 'warmed') {
      if (++this.warmed === this.threads.length) void this.release();
    } else if (m.t === 'done') {
      this.done[w] = m;
      void t.terminate();
    } else if (m.t === 'failed') this.fail(workerFailure(w, m));
  }

  /** Every worker is warmed: once the measured-start hook has run, one common start for all of them. */
  private async release(): Promise<void> {
    await Promise.resolve(this.o.onMeasuredStart?.()).catch(() => undefined);
    if (this.failure) return;
    this.startSharedMs = sharedNowMs() + COMMON_START_MARGIN_MS;
    this.broadcast({ t: 'go', startSharedMs: this.startSharedMs });
  }

  private onRecord(record: RequestRecord): void {
    try {
      this.o.onRecord({ ...record, id: this.o.nextId() });
    } catch (e) {
      this.fail(e);
      return;
    }
    this.policy.observe(record);
    if (this.policy.stopped && !this.halted) {
      this.halted = true;
      this.broadcast({ t: 'halt' });
    }
  }

  private onExit(w: number, t: Worker, code: number): void {
    this.alive.delete(t);
    if (this.done[w] === null && !this.watchdog.abandoned)
      this.fail(
        workerFailure(w, {
          code: null,
          message: `the thread exited (code ${code}) before finishing its share of the level`,
          details: [],
        }),
      );
    if (++this.exited === this.threads.length) this.finish();
  }

  private finish(): void {
    this.watchdog.stop();
    this.o.signal?.removeEventListener('abort', this.onInterrupt);
    if (this.failure) {
      this.settle.reject(this.failure.error);
      return;
    }
    // after an interrupt's grace, only the workers that stopped in time report
    const parts = this.done.filter((d): d is Done => d !== null);
    const nowShared = sharedNowMs();
    const start = this.startSharedMs ?? Math.min(nowShared, ...parts.map((d) => d.measuredStartSharedMs));
    this.settle.resolve({
      records: [],
      inFlightAtEnd: parts.reduce((a, d) => a + d.inFlightAtEnd, 0),
      interrupted: parts.some((d) => d.interrupted) || this.o.signal?.aborted === true,
      measuredStartMs: this.clock.toLocal(start),
      measuredEndMs: this.clock.toLocal(
        parts.length > 0 ? Math.max(...parts.map((d) => d.measuredEndSharedMs)) : nowShared,
      ),
      errorStop: this.policy.stopped,
      self: worstOf(parts.map((d) => d.self)),
    });
  }
}

export function runLevelInWorkers(o: PoolLevelOptions): Promise<PoolLevelResult> {
  const threads = startWorkers(o);
  return new Promise<PoolLevelResult>((resolve, reject) =>
    new PoolRun(o, threads, { resolve, reject }).start(),
  );
}
