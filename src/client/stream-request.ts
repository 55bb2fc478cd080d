// The hot path's entry: one streaming HTTP request becomes one RequestRecord. Plain-http targets go
// over the raw-socket keep-alive pool (transport-raw.ts), https and a caller's own agent over
// node:http, and undici when asked (benchmarks); the record-keeping is stream-run.ts's.
// Every target failure ends as a record with a stable error code; only an unsendable plan header
// (a user mistake, caught before any byte is sent) rejects the promise, as a plan error.

import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { BuiltRequest } from '../engines/types.js';
import { RECORD_VERSION, type RequestRecord } from '../records/request-record.js';
import { destroyControlPools } from './control-http.js';
import { assertSendableHeaders } from './headers.js';
import { destroyPools } from './http1-pool.js';
import { DEFAULT_MAX_EVENT_BYTES, StreamRun, type StreamTimeouts } from './stream-run.js';
import type { Send, SendSpec, TransportName } from './transport.js';
import { destroyNodeAgents, keepAliveAgent, prepareNodeHttp } from './transport-node-http.js';
import { poolForUrl, prepareRaw } from './transport-raw.js';
import { joinUrl } from './url.js';

export { distributeTotal } from './distribute-total.js';
export { DEFAULT_MAX_EVENT_BYTES, type StreamTimeouts } from './stream-run.js';
export { keepAliveAgent } from './transport-node-http.js';

export interface StreamRequestOptions {
  /** Base URL of the target, e.g. http://127.0.0.1:30000 (a path prefix is kept). */
  baseUrl: string;
  request: BuiltRequest;
  /** Extra headers (e.g. Authorization); never copied into the record. */
  headers?: Record<string, string>;
  /** Deadlines, from the plan's target.timeouts (see timeoutsFromPlan). */
  timeouts: StreamTimeouts;
  /** Monotonic ms that record times are relative to (the run's anchor). */
  originMs: number;
  id: number;
  levelIndex: number;
  warmup: boolean;
  /** Absolute monotonic ms when the schedule wanted this request sent (default: now). */
  scheduledAtMs?: number;
  requestedOutputTokens: number;
  /** Prompt tokens as the client counted them when building the prompt. */
  inputTokensClient?: number | null;
  /** Aborts the request; the record gets BG_E_ABORTED. */
  signal?: AbortSignal;
  /** Sends over node:http with this agent. */
  agent?: http.Agent;
  /** Transport override (benchmarks); default raw for http, node-http for https or with `agent`. */
  transport?: TransportName;
  /** Cap on one SSE event in bytes (default 1 MiB); a bigger event fails with BG_E_SSE_EVENT_TOO_LARGE. */
  maxEventBytes?: number;
  /** Opt-in (multi-turn): the reply's visible text is appended here chunk by chunk; costs a parse per chunk. */
  replyText?: string[];
}

/** The plan's target.timeouts (seconds) as the client's deadlines (ms). */
export function timeoutsFromPlan(t: {
  connect_s: number;
  ttft_s: number;
  stall_s: number;
  total_s: number;
}): StreamTimeouts {
  return {
    connectMs: t.connect_s * 1000,
    ttftMs: t.ttft_s * 1000,
    stallMs: t.stall_s * 1000,
    totalMs: t.total_s * 1000,
  };
}

/** The undici transport, loaded on demand: importing undici costs every CLI command startup time. */
let undiciTransport: typeof import('./transport-undici.js') | null = null;

/** Loads the undici transport; call once before sending with `transport: 'undici'`. */
export async function loadUndiciTransport(): Promise<void> {
  undiciTransport ??= await import('./transport-undici.js');
}

/** Closes every kept-alive connection of every transport, load and control (end of a run or command). */
export function destroyAgents(): void {
  destroyNodeAgents();
  destroyPools();
  destroyControlPools();
  undiciTransport?.destroyUndiciPools();
}

/**
 * Makes exactly `count` keep-alive load connections to a plain-http target idle and ready (call before
 * a level with its concurrency): no request of the level includes a TCP handshake in its TTFT, and a
 * previous, larger level's connections are closed, so the load never holds more than it needs.
 * A no-op for https targets (those connect on demand).
 */
export async function preconnect(baseUrl: string, count: number, connectMs: number): Promise<void> {
  const u = new URL(baseUrl);
  if (u.protocol !== 'http:') return;
  await poolForUrl(u).preconnect(count, connectMs);
}

/**
 * Closes this thread's idle load connections to a target: before a level is sent from worker threads
 * (each with its own pool), so the smoke request's or an earlier level's sockets are not held beside them.
 */
export function closeIdleConnections(baseUrl: string): void {
  const u = new URL(baseUrl);
  if (u.protocol === 'http:') poolForUrl(u).closeIdle();
}

function newRecord(opts: StreamRequestOptions): RequestRecord {
  return {
    v: RECORD_VERSION,
    id: opts.id,
    levelIndex: opts.levelIndex,
    warmup: opts.warmup,
    scheduledMs: (opts.scheduledAtMs ?? performance.now()) - opts.originMs,
    sentMs: 0,
    headersMs: null,
    chunkMs: [],
    chunkTokens: [],
    chunkTokenSource: 'one-per-chunk',
    firstContentMs: null,
    endMs: 0,
    inputTokensServer: null,
    inputTokensClient: opts.inputTokensClient ?? null,
    outputTokensServer: null,
    outputTokensClient: null,
    requestedOutputTokens: opts.requestedOutputTokens,
    specVerifySteps: null,
    finishReason: null,
    httpStatus: null,
    error: null,
  };
}

function prepare(opts: StreamRequestOptions, spec: SendSpec, run: StreamRun): Send {
  const which: TransportName =
    opts.transport ?? (opts.agent === undefined && spec.url.protocol === 'http:' ? 'raw' : 'node-http');
  if (which === 'raw') return prepareRaw(spec, run);
  if (which === 'undici') {
    if (undiciTransport === null) throw new Error('the undici transport is not loaded (loadUndiciTransport)');
    return undiciTransport.prepareUndici(spec, run);
  }
  return prepareNodeHttp(spec, run, opts.agent ?? keepAliveAgent(opts.baseUrl));
}

export function streamRequest(opts: StreamRequestOptions): Promise<RequestRecord> {
  try {
    assertSendableHeaders(opts.headers);
  } catch (e) {
    return Promise.reject(e);
  }
  const url = new URL(joinUrl(opts.baseUrl, opts.request.path));
  const rec = newRecord(opts);
  return new Promise<RequestRecord>((resolve) => {
    const run = new StreamRun({
      rec,
      timeouts: opts.timeouts,
      originMs: opts.originMs,
      native: opts.request.tokenAccounting === 'native-cumulative',
      perChunkServer: opts.request.tokenAccounting !== 'openai-final-usage',
      pathname: url.pathname,
      maxEventBytes: opts.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
      signal: opts.signal,
      replyText: opts.replyText ?? null,
      resolve,
    });
    if (opts.signal?.aborted) {
      rec.sentMs = performance.now() - opts.originMs;
      run.finish('BG_E_ABORTED', 'the request was aborted before it was sent.');
      return;
    }
    const spec = {
      url,
      body: JSON.stringify(opts.request.body),
      headers: opts.headers,
      connectMs: opts.timeouts.connectMs,
    };
    try {
      const send = prepare(opts, spec, run);
      run.markSent(performance.now());
      run.cancelTransport = send();
    } catch (e) {
      rec.sentMs = performance.now() - opts.originMs;
      run.finish('BG_E_CONNECT', `could not start a request to ${url.origin}: ${(e as Error).message}.`);
    }
  });
}
