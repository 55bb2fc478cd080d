// The control channel to a target: every request that is not load (health and config probes, /tokenize
// while prompts are built, /metrics telemetry, drift checks, the lossless answers) goes through one
// small pool per origin, at most CONTROL_CONNECTIONS connections, idle ones closed after a short quiet
// time. With the load pool holding at most the level's concurrency C, benchgate never holds more than
// C + CONTROL_CONNECTIONS connections to a server, which matters to servers whose HTTP threads are few
// and held by idle keep-alive sockets (llama.cpp's httplib: n_parallel + 2 on small hosts before 2026).
// Replies are read up to a byte cap: a reply over it fails with an excerpt instead of filling memory.

import type http from 'node:http';
import https from 'node:https';
import { Http1Pool } from './http1-pool.js';
import { renderRequest } from './transport-raw.js';

/** Connections the control channel may hold to one origin at once. */
export const CONTROL_CONNECTIONS = 2;

/** An idle control connection is closed after this long (the server may keep it longer). */
const CONTROL_IDLE_MS = 2000;

/** Default cap on a control reply's body (/metrics of a large server is a few MB; a model list far less). */
export const DEFAULT_MAX_REPLY_BYTES = 32 * 1024 * 1024;

export interface ControlCall {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** JSON text for a POST. */
  body?: string;
  /** Total time for the call, waiting for a connection included. */
  timeoutMs: number;
  maxBytes: number;
  /** An interrupt: the call ends at once, its connection closed, with failure `aborted`. */
  signal?: AbortSignal;
}

export interface ControlReply {
  status: number | null;
  contentType: string | null;
  location: string | null;
  body: Buffer;
  /** Why no complete reply was read; null when one was. */
  failure: { kind: 'connect' | 'timeout' | 'too-large' | 'aborted'; message: string } | null;
}

const rawPools = new Map<string, Http1Pool>();
const agents = new Map<string, https.Agent>();

function rawPool(u: URL): Http1Pool {
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const port = u.port === '' ? 80 : Number(u.port);
  const key = `${host}:${port}`;
  let p = rawPools.get(key);
  if (!p) {
    p = new Http1Pool(host, port, { maxConnections: CONTROL_CONNECTIONS, maxIdleMs: CONTROL_IDLE_MS });
    rawPools.set(key, p);
  }
  return p;
}

function httpsAgent(u: URL): https.Agent {
  let a = agents.get(u.host);
  if (!a) {
    a = new https.Agent({
      keepAlive: true,
      maxSockets: CONTROL_CONNECTIONS,
      maxTotalSockets: CONTROL_CONNECTIONS,
      timeout: CONTROL_IDLE_MS,
    });
    agents.set(u.host, a);
  }
  return a;
}

/** Closes every control connection (end of a command). */
export function destroyControlPools(): void {
  for (const p of rawPools.values()) p.destroy();
  rawPools.clear();
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

/** Collects a reply's body up to the cap; reports the excerpt when the cap is passed. */
class ReplyCollector {
  readonly reply: ControlReply = {
    status: null,
    contentType: null,
    location: null,
    body: Buffer.alloc(0),
    failure: null,
  };
  private readonly parts: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly what: string,
    private readonly maxBytes: number,
  ) {}

  /** Adds body bytes; false when the cap is passed (the failure is set). */
  add(buf: Buffer, start: number, end: number): boolean {
    if (this.reply.failure !== null) return false;
    this.bytes += end - start;
    if (this.bytes > this.maxBytes) {
      const seen = Buffer.concat(this.parts).subarray(0, 200).toString('utf8').replace(/\s+/g, ' ');
      const mib = (this.maxBytes / 1048576).toFixed(0);
      this.reply.failure = {
        kind: 'too-large',
        message: `${this.what} sent more than ${mib} MiB; benchgate stopped reading it (it begins: ${JSON.stringify(seen)}).`,
      };
      this.parts.length = 0;
      return false;
    }
    this.parts.push(Buffer.from(buf.subarray(start, end)));
    return true;
  }

  done(): ControlReply {
    if (this.reply.failure === null) this.reply.body = Buffer.concat(this.parts);
    return this.reply;
  }
}

/** One control request to `url`: never throws; a transport failure, timeout or oversize reply is `failure`. */
export function controlRequest(url: URL, call: ControlCall): Promise<ControlReply> {
  const what = `${call.method} ${url.pathname}`;
  const collect = new ReplyCollector(what, call.maxBytes);
  return new Promise<ControlReply>((resolve) => {
    let settled = false;
    let cancel: () => void = () => {};
    const settle = (failure: ControlReply['failure']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onAbort);
      if (failure !== null && collect.reply.failure === null) collect.reply.failure = failure;
      if (collect.reply.failure !== null) cancel();
      resolve(collect.done());
    };
    const timer = setTimeout(
      () => settle({ kind: 'timeout', message: `${url.href} did not answer within ${call.timeoutMs} ms` }),
      call.timeoutMs,
    );
    const sink: Sink = {
      head: (status, contentType, location) => {
        collect.reply.status = status;
        collect.reply.contentType = contentType;
        collect.reply.location = location;
      },
      body: (buf, start, end) => {
        if (!collect.add(buf, start, end)) settle(null);
      },
      end: () => settle(null),
      fail: (message) => settle({ kind: 'connect', message }),
    };
    const onAbort = (): void => settle({ kind: 'aborted', message: `${what} was interrupted` });
    if (call.signal?.aborted) return onAbort();
    call.signal?.addEventListener('abort', onAbort, { once: true });
    cancel = url.protocol === 'https:' ? sendHttps(url, call, sink) : sendRaw(url, call, sink);
  });
}

interface Sink {
  head(status: number, contentType: string, location: string | null): void;
  body(buf: Buffer, start: number, end: number): void;
  end(): void;
  fail(message: string): void;
}

function sendRaw(url: URL, call: ControlCall, sink: Sink): () => void {
  const accept = call.method === 'GET' ? '*/*' : 'application/json';
  const bytes = renderRequest(url, call.body, call.headers, { method: call.method, accept });
  const ex = rawPool(url).exchange(
    bytes,
    {
      onHead: (head) => sink.head(head.status, head.contentType, head.location),
      onBody: (buf, start, end) => sink.body(buf, start, end),
      onEnd: () => sink.end(),
      onFail: (_phase, message) => sink.fail(message),
    },
    call.timeoutMs,
  );
  return () => ex.cancel();
}

function sendHttps(url: URL, call: ControlCall, sink: Sink): () => void {
  const headers: Record<string, string | number> = { ...call.headers };
  if (call.body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(call.body);
  } else if (call.method !== 'GET') {
    headers['content-length'] = 0; // as the raw transport: a bodyless POST says it has no body
  }
  const req = https.request(url, { method: call.method, headers, agent: httpsAgent(url) });
  req.on('error', (e: NodeJS.ErrnoException) =>
    sink.fail(`could not reach ${url.host} (${e.code ?? e.message})`),
  );
  req.on('response', (res: http.IncomingMessage) => {
    const location = res.headers.location ?? null;
    sink.head(res.statusCode ?? 0, String(res.headers['content-type'] ?? '').toLowerCase(), location);
    res.on('data', (c: Buffer) => sink.body(c, 0, c.length));
    res.on('end', () => sink.end());
    res.on('error', (e) => sink.fail(`the reply broke (${e.message})`));
  });
  req.end(call.body);
  return () => req.destroy();
}
