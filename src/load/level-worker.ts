// A worker thread's body: runs its share of one level (workerData: a WorkerJob) with the same level
// runner and streaming client as the in-process path, and posts each complete record to the
// coordinator (worker-pool.ts), which alone writes the run store. Record times are ms since the
// session's anchor: the anchor arrives on the shared monotonic clock and is converted to this thread's
// performance.now() scale once. The thread runs its own self-check (its own CPU, not the process's).

import { parentPort, workerData } from 'node:worker_threads';
import { destroyAgents, preconnect, streamRequest } from '../client/stream-request.js';
import { threadClock } from '../core/shared-clock.js';
import { runLevel } from './level-runner.js';
import { startSelfCheck } from './self-check.js';
import { actOutWorkerFault, workerFaultFor } from './worker-faults.js';
import { type FromWorker, HEARTBEAT_MS, type ToWorker, type WorkerJob } from './worker-protocol.js';

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('level-worker.ts runs only as a worker thread (load/worker-pool.ts)');
  const job = workerData as WorkerJob;
  const post = (m: FromWorker): void => port.postMessage(m);
  const clock = threadClock();
  const originMs = clock.toLocal(job.anchorSharedMs);
  const interrupt = new AbortController();
  const halt = new AbortController();
  let go: (startSharedMs: number) => void = () => {};
  const started = new Promise<number>((resolve) => {
    go = resolve;
  });
  port.on('message', (m: ToWorker) => {
    if (m.t === 'go') go(m.startSharedMs);
    else if (m.t === 'halt') halt.abort();
    else if (m.t === 'interrupt') interrupt.abort();
    else if (m.t === 'stamp') post({ t: 'stamp', sinceAnchorMs: performance.now() - originMs });
  });
  // the coordinator's watchdog ends a worker that stops sending these (a blocked event loop)
  const heartbeat = setInterval(() => post({ t: 'alive' }), HEARTBEAT_MS);
  heartbeat.unref();
  post({ t: 'alive' });
  try {
    await preconnect(job.baseUrl, job.preconnect, job.timeouts.connectMs);
    const fault = workerFaultFor(process.env, job.workerIndex);
    if (fault) actOutWorkerFault(fault);
    const check = startSelfCheck({ thread: true });
    const n = job.requests.length;
    const result = await runLevel({
      shape: job.shape,
      signal: interrupt.signal,
      halt: halt.signal,
      retainRecords: false,
      // the coordinator releases every worker at one start once all have drained their warmup
      measureFrom: async () => {
        post({ t: 'warmed' });
        const stop = new Promise<null>((resolve) =>
          interrupt.signal.addEventListener('abort', () => resolve(null), { once: true }),
        );
        const startSharedMs = await Promise.race([started, stop]);
        return startSharedMs === null ? performance.now() : clock.toLocal(startSharedMs);
      },
      send: (a) => {
        // this worker's k-th request stands for the level's (k·workers + index)-th: workers spread over
        // the prompt pool instead of all sending the same prompts
        const k = (a.index * job.workerCount + job.workerIndex) % n;
        return streamRequest({
          baseUrl: job.baseUrl,
          request: job.requests[k]!,
          headers: job.headers,
          timeouts: job.timeouts,
          originMs,
          id: -1,
          levelIndex: job.shape.levelIndex,
          warmup: a.warmup,
          scheduledAtMs: a.scheduledAtMs,
          requestedOutputTokens: job.outputTokens[k]!,
          inputTokensClient: job.inputTokens[k] ?? null,
          signal: a.signal,
        });
      },
      onRecord: (record) => post({ t: 'record', record }),
    });
    const self = check.stop();
    clearInterval(heartbeat);
    destroyAgents();
    post({
      t: 'done',
      inFlightAtEnd: result.inFlightAtEnd,
      interrupted: result.interrupted,
      measuredStartSharedMs: clock.toShared(result.measuredStartMs),
      measuredEndSharedMs: clock.toShared(result.measuredEndMs),
      self,
    });
  } catch (e) {
    clearInterval(heartbeat);
    destroyAgents();
    const err = e as { code?: unknown; message?: unknown; details?: unknown };
    post({
      t: 'failed',
      code: typeof err.code === 'string' && err.code.startsWith('BG_E_') ? err.code : null,
      message: typeof err.message === 'string' ? err.message : String(e),
      details: Array.isArray(err.details) ? err.details.map(String) : [],
    });
  }
}

void main();
