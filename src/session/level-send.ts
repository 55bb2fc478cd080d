// Sends one level's requests, in this thread (load.workers 1: the path every run took before workers
// existed) or spread over worker threads (load/worker-pool.ts). Either way each complete record reaches
// `onRecord` in this thread, which alone appends to the run store, and the client's self-check comes
// back with it (per worker and the worst, with workers). The session's sweeper calls it per level.

import { availableParallelism } from 'node:os';
import {
  closeIdleConnections,
  preconnect,
  type StreamTimeouts,
  streamRequest,
} from '../client/stream-request.js';
import type { ClockAnchor } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import { threadClock } from '../core/shared-clock.js';
import type { BuiltRequest } from '../engines/types.js';
import type { Conversations, Turn } from '../load/conversation.js';
import { type LevelRunResult, type LevelShape, runLevel, type SendArgs } from '../load/level-runner.js';
import type { PromptItem } from '../load/prompts.js';
import { type PooledSelfCheckReading, type SelfCheckReading, startSelfCheck } from '../load/self-check.js';
import { resolveWorkerCount, runLevelInWorkers } from '../load/worker-pool.js';
import type { RequestRecord } from '../records/request-record.js';

/** Keep-alive connections opened before a level, at most. */
const MAX_PRECONNECT = 1024;

export interface LevelSendOptions {
  shape: LevelShape;
  /** load.workers: a count, or `auto` (cores − 1, at least 1). */
  workers: number | 'auto';
  url: string;
  headers: Record<string, string>;
  timeouts: StreamTimeouts;
  anchor: ClockAnchor;
  /** The level's built requests and the prompts they came from (same order). */
  built: BuiltRequest[];
  prompts: PromptItem[];
  /** Requests the level keeps in flight (connections to open first). */
  inFlight: number;
  nextId: () => number;
  onRecord: (r: RequestRecord) => void;
  /**
   * Called once warmup and priming are drained; the measured phase's first send waits for it (the
   * prefix-cache counters' "before" is read then).
   */
  onMeasuredStart?: () => Promise<void> | void;
  /** Multi-turn: the users' conversations and how a turn becomes a request (in this thread only). */
  conversations?: { driver: Conversations; requestFor: (t: Turn) => BuiltRequest } | null;
  signal?: AbortSignal;
}

export interface LevelSendResult {
  result: LevelRunResult;
  self: SelfCheckReading | PooledSelfCheckReading;
  /** Worker threads used (1: in this thread). */
  workers: number;
}

export async function sendLevel(o: LevelSendOptions): Promise<LevelSendResult> {
  const conv = o.conversations ?? null;
  let workers = resolveWorkerCount(o.workers, availableParallelism());
  if (conv && workers > 1) {
    // a conversation's next turn needs its previous reply: the users live in this thread
    if (o.workers !== 'auto')
      throw new BenchgateError(
        'BG_E_PLAN_INVALID',
        `workload.kind multi_turn runs in one thread, but load.workers (or --workers) is ${o.workers}; set it to 1 or auto.`,
      );
    workers = 1;
  }
  const connections = Math.min(o.inFlight, MAX_PRECONNECT);
  if (workers > 1) {
    // the workers open their own connections: this thread's idle ones would exceed the budget
    closeIdleConnections(o.url);
    const pooled = await runLevelInWorkers({
      workers,
      shape: o.shape,
      job: {
        baseUrl: o.url,
        headers: o.headers,
        timeouts: o.timeouts,
        anchorSharedMs: threadClock().toShared(o.anchor.monoMs),
        requests: o.built,
        outputTokens: o.prompts.map((p) => p.outputTokens),
        inputTokens: o.prompts.map((p) => p.inputTokens),
      },
      preconnect: connections,
      nextId: o.nextId,
      onRecord: o.onRecord,
      onMeasuredStart: o.onMeasuredStart,
      signal: o.signal,
    });
    return { result: pooled, self: pooled.self, workers };
  }
  // Open the level's connections first, so no measured TTFT includes a TCP handshake.
  await preconnect(o.url, connections, o.timeouts.connectMs);
  const stream = (a: SendArgs, request: BuiltRequest, p: PromptItem, inputTokens: number, reply?: string[]) =>
    streamRequest({
      baseUrl: o.url,
      request,
      headers: o.headers,
      timeouts: o.timeouts,
      originMs: o.anchor.monoMs,
      id: o.nextId(),
      levelIndex: o.shape.levelIndex,
      warmup: a.warmup,
      scheduledAtMs: a.scheduledAtMs,
      requestedOutputTokens: p.outputTokens,
      inputTokensClient: inputTokens,
      signal: a.signal,
      replyText: reply,
    });
  const check = startSelfCheck();
  const result = await runLevel({
    shape: o.shape,
    signal: o.signal,
    // Records go to the store only; the summary is computed from it, so memory stays flat in level length.
    retainRecords: false,
    // multi-turn: each send is the next turn of the stream's user, due after its think time
    dueAtMs: conv ? (u) => conv.driver.dueAtMs(u) : undefined,
    measureFrom: async () => {
      await o.onMeasuredStart?.();
      return performance.now();
    },
    send: (a) => {
      if (conv)
        return conv.driver.send(a, (t, reply) =>
          stream(a, conv.requestFor(t), t.message, t.historyTokens, reply),
        );
      const k = a.index % o.built.length;
      return stream(a, o.built[k]!, o.prompts[k]!, o.prompts[k]!.inputTokens);
    },
    onRecord: o.onRecord,
  });
  return { result, self: check.stop(), workers: 1 };
}
