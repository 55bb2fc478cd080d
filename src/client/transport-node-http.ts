// node:http(s) transport: https targets and callers that bring their own agent. A request written to a
// reused socket that the server closed before answering is sent once more on a new one, as in the
// raw transport.

import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { reuseWindowMs } from './keep-alive.js';
import type { Send, SendSpec, TransportHandlers } from './transport.js';

const sharedAgents = new Map<string, http.Agent>();

/**
 * A keep-alive agent per origin with no socket cap (concurrency is the load runner's job); an idle
 * socket is dropped before the common 5 s server timeout, or sooner when the server's
 * `Keep-Alive: timeout=` says so (Node lowers the agent's timeout to the hint).
 */
export function keepAliveAgent(baseUrl: string): http.Agent {
  const u = new URL(baseUrl);
  const key = `${u.protocol}//${u.host}`;
  let agent = sharedAgents.get(key);
  if (!agent) {
    const opts = {
      keepAlive: true,
      maxSockets: Number.POSITIVE_INFINITY,
      scheduling: 'fifo' as const,
      timeout: reuseWindowMs(null),
    };
    agent = u.protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts);
    sharedAgents.set(key, agent);
  }
  return agent;
}

export function destroyNodeAgents(): void {
  for (const a of sharedAgents.values()) a.destroy();
  sharedAgents.clear();
}

function watchConnect(req: http.ClientRequest, spec: SendSpec, h: TransportHandlers): { clear(): void } {
  let connectTimer: NodeJS.Timeout | null = null;
  const clear = (): void => {
    if (connectTimer) clearTimeout(connectTimer);
    connectTimer = null;
  };
  req.on('socket', (socket) => {
    socket.setNoDelay(true);
    if (socket.connecting) {
      connectTimer = setTimeout(() => {
        h.onFail(
          'connect',
          `could not connect to ${spec.url.host} within ${spec.connectMs} ms.`,
          performance.now(),
        );
      }, spec.connectMs);
      socket.once('connect', clear);
    }
  });
  return { clear };
}

function onResponse(response: http.IncomingMessage, h: TransportHandlers): void {
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
}

export function prepareNodeHttp(spec: SendSpec, h: TransportHandlers, agent: http.Agent): Send {
  const lib = spec.url.protocol === 'https:' ? https : http;
  const headers: Record<string, string | number> = {
    ...spec.headers,
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'content-length': Buffer.byteLength(spec.body),
  };
  return () => {
    let current: { req: http.ClientRequest; clear(): void } | null = null;
    const attempt = (isRetry: boolean): void => {
      const req = lib.request(spec.url, { method: 'POST', headers, agent });
      const connect = watchConnect(req, spec, h);
      current = { req, clear: connect.clear };
      let gotResponse = false;
      req.on('error', (err: NodeJS.ErrnoException) => {
        connect.clear();
        const why = err.code ?? err.message;
        if (!gotResponse && req.reusedSocket && !isRetry) {
          // the server closed the kept-alive socket as it was reused: once more on a new one
          h.onRetry?.(`a reused connection was closed by the server before any answer (${why})`);
          attempt(true);
        } else if (!gotResponse)
          h.onFail('connect', `could not reach ${spec.url.host} (${why}).`, performance.now());
        else h.onFail('response', `the connection broke mid-stream (${why})`, performance.now());
      });
      req.on('response', (response) => {
        gotResponse = true;
        connect.clear();
        onResponse(response, h);
      });
      req.end(spec.body);
    };
    attempt(false);
    return () => {
      current?.clear();
      current?.req.destroy();
    };
  };
}
