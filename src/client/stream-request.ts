// The hot path: one streaming HTTP request becomes one RequestRecord. Plain-http targets go over the
// raw-socket keep-alive pool (http1-pool.ts), https or a caller's own agent over node:http; either way
// each read is timestamped first, then split into SSE events and scanned minimally.
// Every failure ends as a record with a stable error code; this function never throws.

import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { RequestErrorCode } from '../core/errors.js';
import type { BuiltRequest } from '../engines/types.js';
import { RECORD_VERSION, type RequestRecord } from '../records/request-record.js';
import { type ChunkFacts, emptyFacts, scanChunk } from './chunk-scan.js';
import { destroyPools, poolFor } from './http1-pool.js';
import { SseScanner } from './sse-scanner.js';

export interface StreamTimeouts {
  connectMs: number;
  ttftMs: number;
  stallMs: number;
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: StreamTimeouts = {
  connectMs: 10_000,
  ttftMs: 300_000,
  stallMs: 60_000,
  totalMs: 1_800_000,
};

export interface StreamRequestOptions {
  /** Base URL of the target, e.g. http://127.0.0.1:30000 (a path prefix is kept). */
  baseUrl: string;
  request: BuiltRequest;
  /** Extra headers (e.g. Authorization); never copied into the record. */
  headers?: Record<string, string>;
  timeouts?: Partial<StreamTimeouts>;
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
  agent?: http.Agent;
}

const sharedAgents = new Map<string, http.Agent>();

/** A keep-alive agent per origin with no socket cap: concurrency is the load runner's job. */
export function keepAliveAgent(baseUrl: string): http.Agent {
  const u = new URL(baseUrl);
  const key = `${u.protocol}//${u.host}`;
  let agent = sharedAgents.get(key);
  if (!agent) {
    const opts = { keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, scheduling: 'fifo' as const };
    agent = u.protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts);
    sharedAgents.set(key, agent);
  }
  return agent;
}

/** Closes idle keep-alive sockets (end of a run). */
export function destroyAgents(): void {
  for (const a of sharedAgents.values()) a.destroy();
  sharedAgents.clear();
  destroyPools();
}

/**
 * Opens keep-alive connections to a plain-http target until `count` are idle (call before a level
 * with its concurrency), so no request of the level includes a TCP handshake in its TTFT.
 * A no-op for https targets (node:http opens those on demand).
 */
export async function preconnect(
  baseUrl: string,
  count: number,
  timeoutMs = DEFAULT_TIMEOUTS.connectMs,
): Promise<void> {
  const u = new URL(baseUrl);
  if (u.protocol !== 'http:') return;
  await poolForUrl(u).preconnect(count, timeoutMs);
}

/** The raw keep-alive pool for a plain-http URL (IPv6 brackets stripped, default port 80). */
function poolForUrl(u: URL): ReturnType<typeof poolFor> {
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return poolFor(host, u.port === '' ? 80 : Number(u.port));
}

const BODY_PREVIEW_BYTES = 300;

function preview(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > BODY_PREVIEW_BYTES ? `${oneLine.slice(0, BODY_PREVIEW_BYTES)}…` : oneLine;
}

function joinUrl(baseUrl: string, path: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  return new URL(base + (path.startsWith('/') ? path : `/${path}`));
}

/**
 * Spreads a server total over chunks in proportion to each chunk's text size (largest remainder),
 * giving every token-carrying chunk at least one token when the total allows it.
 */
export function distributeTotal(total: number, weights: number[]): number[] {
  const n = weights.length;
  if (n === 0) return [];
  if (total === n) return weights.map(() => 1);
  const base = total >= n ? 1 : 0;
  const rest = total - base * n;
  const wSum = weights.reduce((a, b) => a + Math.max(b, 1), 0);
  const exact = weights.map((w) => (rest * Math.max(w, 1)) / wSum);
  const out = exact.map((x) => base + Math.floor(x));
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact
    .map((x, i) => [x - Math.floor(x), i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; left > 0 && k < order.length; k++, left--) out[order[k][1]]++;
  return out;
}

export function streamRequest(opts: StreamRequestOptions): Promise<RequestRecord> {
  const t = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const origin = opts.originMs;
  const native = opts.request.tokenAccounting === 'native-cumulative';
  const perChunkServer = opts.request.tokenAccounting !== 'openai-final-usage';
  const url = joinUrl(opts.baseUrl, opts.request.path);
  const body = JSON.stringify(opts.request.body);
  const rec: RequestRecord = {
    v: RECORD_VERSION,
    id: opts.id,
    levelIndex: opts.levelIndex,
    warmup: opts.warmup,
    scheduledMs: (opts.scheduledAtMs ?? performance.now()) - origin,
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

  return new Promise<RequestRecord>((resolve) => {
    const facts: ChunkFacts = emptyFacts();
    const chunkChars: number[] = [];
    let lastCumulative = 0;
    let sawServerPerChunk = false;
    let sawDone = false;
    let done = false;
    let sentAbs = 0;
    let lastDataAbs = 0;
    /** Arrival time of the read being scanned: every event in one read shares it. */
    let readAbs = 0;
    let timer: NodeJS.Timeout | null = null;
    let cancelTransport: (() => void) | null = null;
    // non-stream answers (error status, HTML): status, content type and the first bytes of the body
    let plainStatus = 0;
    let plainType = '';
    let plainText: string | null = null;

    const finish = (code: RequestErrorCode | null, message: string, atAbs = performance.now()): void => {
      if (done) return;
      done = true;
      scanner.stopped = true;
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      rec.endMs = atAbs - origin;
      if (code) rec.error = { code, message };
      finalizeTokens();
      if (code && cancelTransport) cancelTransport();
      resolve(rec);
    };

    const finalizeTokens = (): void => {
      const clientCount = rec.chunkTokens.length;
      if (sawServerPerChunk && perChunkServer) {
        rec.chunkTokenSource = 'server-per-chunk';
        // sum of the per-chunk deltas: disagrees with the server total only if chunks were lost or counts went backwards
        rec.outputTokensClient = rec.chunkTokens.reduce((a, b) => a + b, 0);
      } else if (rec.outputTokensServer !== null && clientCount > 0) {
        rec.outputTokensClient = clientCount;
        rec.chunkTokens = distributeTotal(rec.outputTokensServer, chunkChars);
        rec.chunkTokenSource = 'server-total-distributed';
      } else {
        rec.outputTokensClient = clientCount;
        rec.chunkTokenSource = 'one-per-chunk';
      }
    };

    const onAbort = (): void => finish('BG_E_ABORTED', 'the request was aborted before it finished.');

    const armTimer = (): void => {
      // One timer for three deadlines; chunks only update lastDataAbs, the timer re-arms itself lazily.
      const now = performance.now();
      const totalAt = sentAbs + t.totalMs;
      const firstAt = rec.chunkMs.length === 0 ? sentAbs + t.ttftMs : Number.POSITIVE_INFINITY;
      const stallAt = lastDataAbs + t.stallMs;
      const next = Math.min(totalAt, firstAt, stallAt);
      timer = setTimeout(onTimer, Math.max(1, next - now));
    };

    const onTimer = (): void => {
      if (done) return;
      const now = performance.now();
      if (now >= sentAbs + t.totalMs) {
        finish('BG_E_TOTAL_TIMEOUT', `the request took longer than the total timeout of ${t.totalMs} ms.`);
      } else if (rec.chunkMs.length === 0 && now >= sentAbs + t.ttftMs) {
        finish('BG_E_TTFT_TIMEOUT', `no token arrived within the first-token timeout of ${t.ttftMs} ms.`);
      } else if (now >= lastDataAbs + t.stallMs) {
        const after = `after ${rec.chunkMs.length} token chunks`;
        finish('BG_E_STALL_TIMEOUT', `no bytes arrived for ${t.stallMs} ms (stall timeout) ${after}.`);
      } else {
        armTimer();
      }
    };

    const onEvent = (data: string): void => {
      const atAbs = readAbs;
      if (data.length === 6 && data === '[DONE]') {
        sawDone = true;
        return;
      }
      if (!scanChunk(data, native, facts)) {
        finish('BG_E_MALFORMED_CHUNK', `a streamed chunk is not a JSON object: ${preview(data)}`, atAbs);
        return;
      }
      if (facts.errorMessage !== null) {
        finish(
          'BG_E_STREAM_TRUNCATED',
          `the stream carried an error event instead of tokens: ${preview(facts.errorMessage)}`,
          atAbs,
        );
        return;
      }
      if (facts.promptTokens >= 0) rec.inputTokensServer = facts.promptTokens;
      if (facts.specVerifySteps >= 0) rec.specVerifySteps = facts.specVerifySteps;
      let tokens = 0;
      const visible = facts.contentChars > 0;
      const carries = visible || facts.reasoningChars > 0;
      if (facts.completionTokens >= 0) {
        // cumulative so far (per-chunk usage / meta_info) or the final total (usage-only last chunk)
        rec.outputTokensServer = facts.completionTokens;
        if (perChunkServer && (sawServerPerChunk || carries)) {
          sawServerPerChunk = true;
          tokens = facts.completionTokens - lastCumulative;
          if (tokens > 0) lastCumulative = facts.completionTokens;
          else tokens = 0;
        }
      }
      if (!sawServerPerChunk && carries) tokens = 1;
      if (tokens > 0) {
        const rel = atAbs - origin;
        rec.chunkMs.push(rel);
        rec.chunkTokens.push(tokens);
        if (!perChunkServer) chunkChars.push(facts.contentChars + facts.reasoningChars);
        if (rec.firstContentMs === null && (native ? true : visible)) rec.firstContentMs = rel;
      }
      if (facts.finishReason !== null) rec.finishReason = facts.finishReason;
    };
    const scanner = new SseScanner(onEvent);

    // The transport calls these four; both transports (raw socket, node:http) share them.
    const onHead = (status: number, contentType: string, atAbs: number): void => {
      lastDataAbs = atAbs;
      if (done) return;
      rec.headersMs = atAbs - origin;
      rec.httpStatus = status;
      if (status < 200 || status >= 300 || !contentType.includes('text/event-stream')) {
        plainStatus = status;
        plainType = contentType;
        plainText = '';
      }
    };

    const onBody = (buf: Buffer, start: number, end: number, atAbs: number): void => {
      lastDataAbs = atAbs;
      if (done) return;
      if (plainText !== null) {
        if (plainText.length < 2048) plainText += buf.toString('utf8', start, Math.min(end, start + 2048));
        return;
      }
      readAbs = atAbs;
      scanner.feed(buf, start, end);
    };

    const onEnd = (atAbs: number): void => {
      if (done) return;
      if (plainText !== null) {
        settlePlain();
        return;
      }
      readAbs = atAbs;
      scanner.flush();
      if (done) return;
      if (rec.finishReason === null && !sawDone) {
        finish(
          'BG_E_STREAM_TRUNCATED',
          `the stream ended without a finish reason after ${rec.chunkMs.length} token chunks.`,
          atAbs,
        );
        return;
      }
      if (rec.finishReason === null) rec.finishReason = 'done';
      finish(null, '', atAbs);
    };

    const settlePlain = (): void => {
      const text = preview(plainText ?? '') || '(empty body)';
      if (plainStatus < 200 || plainStatus >= 300)
        finish('BG_E_HTTP_STATUS', `HTTP ${plainStatus} from POST ${url.pathname}: ${text}`);
      else
        finish(
          'BG_E_NOT_SSE',
          `expected an event stream (text/event-stream) from POST ${url.pathname}, got "${plainType || 'no content-type'}": ${text}`,
        );
    };

    const onFail = (phase: 'connect' | 'response', detail: string, atAbs: number): void => {
      if (done) return;
      if (phase === 'connect' || rec.headersMs === null) {
        finish('BG_E_CONNECT', detail, atAbs);
      } else if (plainText !== null) {
        settlePlain();
      } else {
        finish(
          'BG_E_STREAM_TRUNCATED',
          `${detail.replace(/\.$/, '')} after ${rec.chunkMs.length} token chunks.`,
          atAbs,
        );
      }
    };

    if (opts.signal?.aborted) {
      rec.sentMs = performance.now() - origin;
      finish('BG_E_ABORTED', 'the request was aborted before it was sent.');
      return;
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const handlers: TransportHandlers = { onHead, onBody, onEnd, onFail };
    const useRaw = url.protocol === 'http:' && opts.agent === undefined;
    try {
      const send = useRaw
        ? prepareRaw(url, body, opts.headers, t.connectMs, handlers)
        : prepareNodeHttp(url, body, opts, t.connectMs, handlers);
      sentAbs = performance.now();
      lastDataAbs = sentAbs;
      rec.sentMs = sentAbs - origin;
      armTimer();
      cancelTransport = send();
    } catch (e) {
      rec.sentMs = performance.now() - origin;
      finish('BG_E_CONNECT', `could not start a request to ${url.origin}: ${(e as Error).message}.`);
    }
  });
}

interface TransportHandlers {
  onHead(status: number, contentType: string, atAbs: number): void;
  onBody(buf: Buffer, start: number, end: number, atAbs: number): void;
  onEnd(atAbs: number): void;
  onFail(phase: 'connect' | 'response', detail: string, atAbs: number): void;
}

const HEADER_VALUE_OK = /^[\t\x20-\x7e\x80-\xff]*$/;
const HEADER_NAME_OK = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Headers the transport writes itself; a caller's copy of them is dropped. */
const FRAMING_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'accept',
  'connection',
  'transfer-encoding',
]);

/** The complete request as one buffer: written to the socket in one call. */
export function renderRequest(url: URL, body: string, headers: Record<string, string> | undefined): Buffer {
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!HEADER_NAME_OK.test(name)) throw new Error(`the header name "${name}" is not a valid HTTP token`);
    if (!HEADER_VALUE_OK.test(value))
      throw new Error(`the value of header "${name}" holds a line break or control character`);
    if (FRAMING_HEADERS.has(name.toLowerCase())) continue;
    head += `${name}: ${value}\r\n`;
  }
  head += `Content-Type: application/json\r\nAccept: text/event-stream\r\nConnection: keep-alive\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return Buffer.from(head + body, 'utf8');
}

/** Raw-socket transport (plain http): pooled keep-alive sockets, one write, reads timestamped first. */
function prepareRaw(
  url: URL,
  body: string,
  headers: Record<string, string> | undefined,
  connectMs: number,
  h: TransportHandlers,
): () => () => void {
  const bytes = renderRequest(url, body, headers);
  const pool = poolForUrl(url);
  return () => {
    const ex = pool.exchange(
      bytes,
      {
        onHead: (head, atMs) => h.onHead(head.status, head.contentType, atMs),
        onBody: h.onBody,
        onEnd: h.onEnd,
        onFail: h.onFail,
      },
      connectMs,
    );
    return () => ex.cancel();
  };
}

/** node:http(s) transport: https targets and callers that bring their own agent. */
function prepareNodeHttp(
  url: URL,
  body: string,
  opts: StreamRequestOptions,
  connectMs: number,
  h: TransportHandlers,
): () => () => void {
  const lib = url.protocol === 'https:' ? https : http;
  const headers: Record<string, string | number> = {
    ...opts.headers,
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'content-length': Buffer.byteLength(body),
  };
  const req = lib.request(url, {
    method: 'POST',
    headers,
    agent: opts.agent ?? keepAliveAgent(opts.baseUrl),
  });
  return () => {
    let gotResponse = false;
    let connectTimer: NodeJS.Timeout | null = null;
    const clearConnect = (): void => {
      if (connectTimer) clearTimeout(connectTimer);
      connectTimer = null;
    };
    req.on('socket', (socket) => {
      socket.setNoDelay(true);
      if (socket.connecting) {
        connectTimer = setTimeout(() => {
          h.onFail('connect', `could not connect to ${url.host} within ${connectMs} ms.`, performance.now());
        }, connectMs);
        socket.once('connect', clearConnect);
      }
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearConnect();
      if (!gotResponse)
        h.onFail('connect', `could not reach ${url.host} (${err.code ?? err.message}).`, performance.now());
      else
        h.onFail(
          'response',
          `the connection broke mid-stream (${err.code ?? err.message})`,
          performance.now(),
        );
    });
    req.on('response', (response) => {
      gotResponse = true;
      clearConnect();
      h.onHead(
        response.statusCode ?? 0,
        String(response.headers['content-type'] ?? '').toLowerCase(),
        performance.now(),
      );
      response.on('data', (c: Buffer) => h.onBody(c, 0, c.length, performance.now()));
      response.on('end', () => h.onEnd(performance.now()));
      response.on('error', (err: Error) =>
        h.onFail('response', `the stream broke (${err.message})`, performance.now()),
      );
      response.on('aborted', () =>
        h.onFail('response', 'the server closed the stream without a finish', performance.now()),
      );
    });
    req.end(body);
    return () => {
      clearConnect();
      req.destroy();
    };
  };
}
