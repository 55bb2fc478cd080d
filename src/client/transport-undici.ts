// undici transport: one undici Pool per origin (no connection cap, pipelining off, its own body and
// header timeouts off: the client's deadlines are stream-run.ts's job), each request dispatched with
// a handler that stamps every callback with the monotonic time before doing anything else.

import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { reuseWindowMs } from './keep-alive.js';
import type { Send, SendSpec, TransportHandlers } from './transport.js';

const pools = new Map<string, Pool>();

function poolFor(url: URL, connectMs: number): Pool {
  const key = `${url.origin}|${connectMs}`;
  let p = pools.get(key);
  if (!p) {
    p = new Pool(url.origin, {
      connections: null,
      pipelining: 1,
      connectTimeout: connectMs,
      headersTimeout: 0,
      bodyTimeout: 0,
      // undici lowers it to a server's `Keep-Alive: timeout=` hint; without one, before the common 5 s
      keepAliveTimeout: reuseWindowMs(null),
    });
    pools.set(key, p);
  }
  return p;
}

/** Closes every undici pool (end of a run); idle undici sockets never hold the process open. */
export function destroyUndiciPools(): void {
  for (const p of pools.values()) void p.destroy().catch(() => {});
  pools.clear();
}

function contentTypeOf(raw: Buffer[]): string {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i].length === 12 && raw[i].toString('latin1').toLowerCase() === 'content-type')
      return raw[i + 1].toString('latin1').toLowerCase();
  }
  return '';
}

export function prepareUndici(spec: SendSpec, h: TransportHandlers): Send {
  const pool = poolFor(spec.url, spec.connectMs);
  const headers: Record<string, string> = {
    ...spec.headers,
    'content-type': 'application/json',
    accept: 'text/event-stream',
  };
  return () => {
    let abort: ((err?: Error) => void) | null = null;
    let cancelled = false;
    let gotHead = false;
    pool.dispatch(
      {
        origin: spec.url.origin,
        path: spec.url.pathname + spec.url.search,
        method: 'POST',
        headers,
        body: spec.body,
      },
      {
        onConnect(a) {
          abort = a;
          if (cancelled) a(new Error('cancelled'));
        },
        onHeaders(status, raw) {
          const atAbs = performance.now();
          if (status < 200 && status !== 0) return true;
          gotHead = true;
          h.onHead(status, contentTypeOf(raw), atAbs);
          return true;
        },
        onData(chunk) {
          h.onBody(chunk, 0, chunk.length, performance.now());
          return true;
        },
        onComplete() {
          h.onEnd(performance.now());
        },
        onError(err: Error & { code?: string }) {
          if (cancelled) return;
          const why = err.code ?? err.message;
          if (!gotHead) h.onFail('connect', `could not reach ${spec.url.host} (${why}).`, performance.now());
          else h.onFail('response', `the connection broke mid-stream (${why})`, performance.now());
        },
      },
    );
    return () => {
      cancelled = true;
      abort?.(new Error('cancelled'));
    };
  };
}
