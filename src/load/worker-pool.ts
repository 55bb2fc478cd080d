// One level sent by N worker threads (`--workers N`), so the client is not bounded by one core's event
// loop. This thread coordinates; each worker (level-worker.ts) runs the level runner on its own share
// (load/shard.ts subShard: closed loop splits streams and requests exactly, open loop walks the whole
// seeded schedule and sends the arrivals it owns) and posts each complete record here. Here alone:
// record ids are assigned and records handed to `onRecord` (the run store's single writer), the
// error-rate stop is judged over all workers' records, and interrupts are forwarded. Every worker drains
// its warmup, then all start the measured phase at one time on the shared clock; the measured window is
// that start to the last worker's end. An open-loop cap is one counter shared by all workers. A worker that throws or exits early fails the level with
// BG_E_WORKER after the other workers are stopped: never a hang.

import type { Worker } from 'node:worker_threads';
import { BenchgateError, ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { sharedNowMs, threadClock } from '../core/shared-clock.js';
import type { RequestRecord } from '../records/request-record.js';
import { FailurePolicy } from './failure-policy.js';
import type { LevelRunResult, LevelShape } from './level-runner.js';
import { type PooledSelfCheckReading, type SelfCheckReading, worstOf } from './self-check.js';
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
  /** Called once, when every worker has drained its warmup and the common start is set. */
  onMeasuredStart?: () => void;
  signal?: AbortSignal;
  /** Called with each worker as it starts (tests use it to probe a worker's clock). */
  onWorker?: (w: Worker, index: number) => void;
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

export function runLevelInWorkers(o: PoolLevelOptions): Promise<PoolLevelResult> {
  const n = o.workers;
  const clock = threadClock();
  const policy = new FailurePolicy(null, o.shape.errorStop ?? null, 0);
  // an open-loop cap holds across all workers, as in one thread (a Kubernetes shard: its share of it)
  const capTotal = o.shape.level.kind === 'rate' ? o.shape.level.maxConcurrency : null;
  const pod = o.shape.shard ?? null;
  const capHere = capTotal && pod ? Math.max(1, shareOf(capTotal, pod.index, pod.count)) : capTotal;
  const sharedCap = capHere ? SharedSlots.cell(capHere) : null;
  const threads = Array.from({ length: n }, (_, w) => {
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
  const done: (Extract<FromWorker, { t: 'done' }> | null)[] = threads.map(() => null);
  let warmed = 0;
  let exited = 0;
  let halted = false;
  /** The first error: a worker's, or the record writer's (a full disk stops the level as in one thread). */
  let failure: { error: unknown } | null = null;
  let startSharedMs: number | null = null;
  const alive = new Set(threads);
  const broadcast = (m: ToWorker): void => {
    for (const t of alive) t.postMessage(m);
  };
  const onInterrupt = (): void => broadcast({ t: 'interrupt' });
  o.signal?.addEventListener('abort', onInterrupt, { once: true });

  return new Promise<PoolLevelResult>((resolve, reject) => {
    const fail = (e: unknown): void => {
      if (failure) return;
      failure = { error: e };
      for (const t of alive) void t.terminate();
    };
    const finish = (): void => {
      o.signal?.removeEventListener('abort', onInterrupt);
      if (failure) {
        reject(failure.error);
        return;
      }
      const parts = done as Extract<FromWorker, { t: 'done' }>[];
      const selfs: SelfCheckReading[] = parts.map((d) => d.self);
      const start = startSharedMs ?? Math.min(...parts.map((d) => d.measuredStartSharedMs));
      resolve({
        records: [],
        inFlightAtEnd: parts.reduce((a, d) => a + d.inFlightAtEnd, 0),
        interrupted: parts.some((d) => d.interrupted) || o.signal?.aborted === true,
        measuredStartMs: clock.toLocal(start),
        measuredEndMs: clock.toLocal(Math.max(...parts.map((d) => d.measuredEndSharedMs))),
        errorStop: policy.stopped,
        self: worstOf(selfs),
      });
    };
    threads.forEach((t, w) => {
      t.on('message', (m: FromWorker) => {
        if (failure) return;
        if (m.t === 'record') {
          try {
            o.onRecord({ ...m.record, id: o.nextId() });
          } catch (e) {
            fail(e);
            return;
          }
          policy.observe(m.record);
          if (policy.stopped && !halted) {
            halted = true;
            broadcast({ t: 'halt' });
          }
        } else if (m.t === 'warmed') {
          if (++warmed === n) {
            startSharedMs = sharedNowMs() + COMMON_START_MARGIN_MS;
            o.onMeasuredStart?.();
            broadcast({ t: 'go', startSharedMs });
          }
        } else if (m.t === 'done') {
          done[w] = m;
          void t.terminate();
        } else if (m.t === 'failed') fail(workerFailure(w, m));
      });
      t.on('error', (e: Error) => fail(workerFailure(w, { code: null, message: e.message, details: [] })));
      t.on('exit', (code) => {
        alive.delete(t);
        if (done[w] === null)
          fail(
            workerFailure(w, {
              code: null,
              message: `the thread exited (code ${code}) before finishing its share of the level`,
              details: [],
            }),
          );
        if (++exited === n) finish();
      });
    });
    if (o.signal?.aborted) onInterrupt();
  });
}
