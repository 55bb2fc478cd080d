// A tiny HTTP server for client tests: each path plays a scripted answer (pre-rendered SSE,
// failures, stalls), so every failure code can be produced on demand on 127.0.0.1, port 0.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Script = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: string,
) => void | Promise<void>;

export interface ScriptedServer {
  url: string;
  bodies: string[];
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function startScriptedServer(routes: Record<string, Script>): Promise<ScriptedServer> {
  const bodies: string[] = [];
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      bodies.push(body);
      headers.push(req.headers);
      const route = routes[req.url ?? ''];
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
        return;
      }
      void route(req, res, body);
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    headers,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Writes SSE events with an optional gap between them, then ends (unless `keepOpen`). */
export function sse(
  events: string[],
  opts: { gapMs?: number; keepOpen?: boolean; status?: number } = {},
): Script {
  return async (_req, res) => {
    res.writeHead(opts.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const e of events) {
      res.write(`data: ${e}\n\n`);
      if (opts.gapMs) await sleep(opts.gapMs);
    }
    if (!opts.keepOpen) res.end();
  };
}

export const chatChunk = (
  delta: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  finish: string | null = null,
) =>
  JSON.stringify({
    id: 'x',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });

export const completionChunk = (
  text: string,
  extra: Record<string, unknown> = {},
  finish: string | null = null,
) =>
  JSON.stringify({
    id: 'x',
    object: 'text_completion',
    choices: [{ index: 0, text, finish_reason: finish }],
    ...extra,
  });
