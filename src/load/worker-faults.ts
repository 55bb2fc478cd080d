// Faults a load worker can be told to have, so the tests of what a level and a run do when a worker
// fails can use the real worker threads (docs/reliability.md): the environment variable
// BENCHGATE_TEST_WORKER_FAULT=throw|spin[:INDEX] makes worker INDEX (default 0) throw at its start, or
// busy-loop forever (its event loop blocked: no message in or out). Unset, nothing here runs.

export const WORKER_FAULT_ENV = 'BENCHGATE_TEST_WORKER_FAULT';

export type WorkerFault = 'throw' | 'spin';

/** The fault this worker is told to have, or null. */
export function workerFaultFor(
  env: Record<string, string | undefined>,
  workerIndex: number,
): WorkerFault | null {
  const spec = env[WORKER_FAULT_ENV];
  if (!spec) return null;
  const [kind, index] = spec.split(':');
  if (kind !== 'throw' && kind !== 'spin') return null;
  return Number(index ?? 0) === workerIndex ? kind : null;
}

/** Acts out the fault: throws, or never returns (a busy loop only terminate() ends). */
export function actOutWorkerFault(fault: WorkerFault): void {
  if (fault === 'throw') throw new Error(`${WORKER_FAULT_ENV}=throw: this worker fails on purpose`);
  const until = Number.POSITIVE_INFINITY;
  while (performance.now() < until) {
    // the event loop never turns again
  }
}
