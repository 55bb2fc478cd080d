// A worker thread's body: runs its share of one level (workerData: a WorkerJob) with the same level
// runner and streaming client as the in-process path, and posts each complete record to the
// coordinator (worker-pool.ts), which alone writes the run store. Record times are ms since the
// session's anchor: the anchor arrives on the shared monotonic clock and is converted to this thread's
// performance.now() scale once. The thread runs its own self-check (its own CPU, not the process's).

import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { destroyAgents, preconnect, streamRequest } from '../client/stream-request.js';
import { type ThreadClock, threadClock } from '../core/shared-clock.js';
import { runLevel, type SendArgs } from './level-runner.js';
import { startSelfCheck } from './self-check.js';
import { actOutWorkerFault, workerFaultFor } from './worker-faults.js';
import { type FromWorker, HEARTBEAT_MS, type ToWorker, type WorkerJob } from './worker-protocol.js';

/** The coordinator's messages: the common start, the error-rate stop, the interrupt, a clock stamp. */
function listen(port: MessagePort, post: (m: FromWorker) => void, clock: ThreadClock, originMs: number) {
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
  /** Resolves to the common start (this thread's clock), or now when interrupted while waiting for it. */
  const commonStart = async (): Promise<number> => {
    const stop = new Promise<null>((resolve) =>
      interrupt.signal.addEventListener('abort', () => resolve(null), { once: true }),
    );
    const startSharedMs = await Promise.race([started, stop]);
    return startSharedMs === null ? performance.now() : clock.toLocal(startSharedMs);
  };
  return { interrupt: interrupt.signal, halt: halt.signal, commonStart };
}

/** Sends this worker's k-th request, standing for the level's (k·workers + index)-th. */
function sender(job: WorkerJob, originMs: number) {
  const n = job.requests.length;
  return (a: SendArgs) => {
    // workers spread over the prompt pool instead of all sending the same prompts
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
  };
}

/** What the coordinator is told when the share fails: the error's code (a BG_E_ one), message and details. */
function failedMessage(e: unknown): FromWorker {
  const err = e as { code?: unknown; message?: unknown; details?: unknown };
  return {
    t: 'failed',
    code: typeof err.code === 'string' && err.code.startsWith('BG_E_') ? err.code : null,
    message: typeof err.message === 'string' ? err.message : String(e),
    details: Array.isArray(err.details) ? err.details.map(String) : [],
  };
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('level-worker.ts runs only as a worker thread (load/worker-pool.ts)');
  const job = workerData as WorkerJob;
  const post = (m: FromWorker): void => port.postMessage(m);
  const clock = threadClock();
  const originMs = clock.toLocal(job.anchorSharedMs);
  // one clock for the thread: every conversion must use the same offset
  const ctl = listen(port, post, clock, originMs);
  // the coordinator's watchdog ends a worker that stops sending these (a blocked event loop)
  const heartbeat = setInterval(() => post({ t: 'alive' }), HEARTBEAT_MS);
  heartbeat.unref();
  post({ t: 'alive' });
  /** Before the last message: the coordinator ends the thread as soon as it has it. */
  const end = (): void => {
    clearInterval(heartbeat);
    destroyAgents();
  };
  try {
    await preconnect(job.baseUrl, job.preconnect, job.timeouts.connectMs);
    const fault = workerFaultFor(process.env, job.workerIndex);
    if (fault) actOutWorkerFault(fault);
    const check = startSelfCheck({ thread: true });
    const result = await runLevel({
      shape: job.shape,
      signal: ctl.interrupt,
      halt: ctl.halt,
      retainRecords: false,
      // the coordinator releases every worker at one start once all have drained their warmup
      measureFrom: () => {
        post({ t: 'warmed' });
        return ctl.commonStart();
      },
      send: sender(job, originMs),
      onRecord: (record) => post({ t: 'record', record }),
    });
    const self = check.stop();
    end();
    post({
      t: 'done',
      inFlightAtEnd: result.inFlightAtEnd,
      interrupted: result.interrupted,
      measuredStartSharedMs: clock.toShared(result.measuredStartMs),
      measuredEndSharedMs: clock.toShared(result.measuredEndMs),
      self,
    });
  } catch (e) {
    end();
    post(failedMessage(e));
  }
}

void main();
