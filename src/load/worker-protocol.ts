// The messages between the level coordinator (worker-pool.ts) and its worker threads (level-worker.ts).
// Times that cross the thread boundary are on the shared monotonic clock (core/shared-clock.ts).

import type { StreamTimeouts } from '../client/stream-request.js';
import type { BuiltRequest } from '../engines/types.js';
import type { RequestRecord } from '../records/request-record.js';
import type { LevelShape } from './level-runner.js';
import type { SelfCheckReading } from './self-check.js';

/** What one worker thread needs to run its share of a level (its workerData). */
export interface WorkerJob {
  workerIndex: number;
  workerCount: number;
  /** The level with this worker's shard (load/shard.ts subShard) and no error-rate stop of its own. */
  shape: LevelShape;
  baseUrl: string;
  headers: Record<string, string>;
  timeouts: StreamTimeouts;
  /** The session's clock anchor on the shared clock: record times are ms since it. */
  anchorSharedMs: number;
  /** The level's built requests; request k of the level uses requests[k % length]. */
  requests: BuiltRequest[];
  outputTokens: number[];
  inputTokens: (number | null)[];
  /** Keep-alive connections to open before the first send (this worker's share of the level's). */
  preconnect: number;
}

/** How often a worker says it is alive; the coordinator's watchdog ends one silent far longer. */
export const HEARTBEAT_MS = 500;

export type FromWorker =
  /** The worker's event loop turns (sent every HEARTBEAT_MS). */
  | { t: 'alive' }
  /** Warmup drained; waiting for the common start. */
  | { t: 'warmed' }
  /** One complete record (its id is the coordinator's to assign). */
  | { t: 'record'; record: RequestRecord }
  | { t: 'stamp'; sinceAnchorMs: number }
  | {
      t: 'done';
      inFlightAtEnd: number;
      interrupted: boolean;
      measuredStartSharedMs: number;
      measuredEndSharedMs: number;
      self: SelfCheckReading;
    }
  | { t: 'failed'; code: string | null; message: string; details: string[] };

export type ToWorker =
  /** The measured phase starts at this shared-clock ms in every worker. */
  | { t: 'go'; startSharedMs: number }
  /** Stop sending; requests in flight finish and are recorded (error-rate stop). */
  | { t: 'halt' }
  /** Stop sending and abort requests in flight (Ctrl-C, SIGTERM). */
  | { t: 'interrupt' }
  /** Answer with this thread's clock on the anchor's scale, as a record time would be taken. */
  | { t: 'stamp' };
