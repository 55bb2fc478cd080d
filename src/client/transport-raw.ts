// Raw-socket transport for plain-http targets: the request rendered as one buffer and written to a
// pooled keep-alive socket (http1-pool.ts), reads handed on with their arrival stamps.

import { headerProblem } from './headers.js';
import { poolFor } from './http1-pool.js';
import type { Send, SendSpec, TransportHandlers } from './transport.js';

/** Headers the transport writes itself; a caller's copy of them is dropped. */
const FRAMING_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'accept',
  'connection',
  'transfer-encoding',
]);

/** The complete request as one buffer: written to the socket in one call. Throws for an unsendable header. */
export function renderRequest(
  url: URL,
  body: string | undefined,
  headers: Record<string, string> | undefined,
  how: { method: 'GET' | 'POST'; accept: string } = { method: 'POST', accept: 'text/event-stream' },
): Buffer {
  let head = `${how.method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers ?? {})) {
    const problem = headerProblem(name, value);
    if (problem !== null) throw new Error(problem);
    if (FRAMING_HEADERS.has(name.toLowerCase())) continue;
    head += `${name}: ${value}\r\n`;
  }
  head += `Accept: ${how.accept}\r\nConnection: keep-alive\r\n`;
  if (body !== undefined)
    head += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  // a POST with no body still says so: llama-server b4747 (cpp-httplib 0.19) otherwise waits for a body
  // that never comes, and the request times out instead of being answered
  else if (how.method !== 'GET') head += 'Content-Length: 0\r\n';
  return Buffer.from(`${head}\r\n${body ?? ''}`, 'utf8');
}

/** The raw keep-alive pool for a plain-http URL (IPv6 brackets stripped, default port 80). */
export function poolForUrl(u: URL): ReturnType<typeof poolFor> {
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return poolFor(host, u.port === '' ? 80 : Number(u.port));
}

export function prepareRaw(spec: SendSpec, h: TransportHandlers): Send {
  const bytes = renderRequest(spec.url, spec.body, spec.headers);
  const pool = poolForUrl(spec.url);
  return () => {
    const ex = pool.exchange(
      bytes,
      {
        onHead: (head, atMs) => h.onHead(head.status, head.contentType, atMs),
        onBody: (buf, start, end, atMs) => h.onBody(buf, start, end, atMs),
        onEnd: (atMs) => h.onEnd(atMs),
        onFail: (phase, message, atMs) => h.onFail(phase, message, atMs),
        onRetry: (reason) => h.onRetry?.(reason),
      },
      spec.connectMs,
    );
    return () => ex.cancel();
  };
}
