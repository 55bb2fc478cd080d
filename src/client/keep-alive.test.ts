import { afterEach, describe, expect, it } from 'vitest';
import { type ExchangeHandlers, Http1Pool } from './http1-pool.js';
import { parseKeepAlive, requestLimit, reuseWindowMs } from './keep-alive.js';
import { destroyAgents, streamRequest } from './stream-request.js';
import { type RawScript, type RawServer, startRawServer } from './test-support/raw-http-server.js';
import { planDefaultTimeouts } from './test-support/timeouts.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const request = (port: number): Buffer =>
  Buffer.from(`POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 2\r\n\r\n{}`);

interface Outcome {
  body: string;
  fail: string | null;
  retries: number;
}

function exchange(pool: Http1Pool, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let body = '';
    let retries = 0;
    const h: ExchangeHandlers = {
      onHead: () => {},
      onBody: (buf, s, e) => {
        body += buf.toString('utf8', s, e);
      },
      onEnd: () => resolve({ body, fail: null, retries }),
      onFail: (phase, message) => resolve({ body, fail: `${phase}: ${message}`, retries }),
      onRetry: () => {
        retries++;
      },
    };
    pool.exchange(request(port), h, 2000);
  });
}

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

async function setUp(script: RawScript, opts = {}): Promise<{ s: RawServer; pool: Http1Pool }> {
  const s = await startRawServer(script);
  const pool = new Http1Pool('127.0.0.1', s.port, opts);
  cleanup.push(
    () => pool.destroy(),
    () => s.close(),
  );
  return { s, pool };
}

describe('Keep-Alive header', () => {
  it('reads timeout and max, ignoring what it does not know', () => {
    expect(parseKeepAlive('timeout=5, max=100')).toEqual({ timeoutS: 5, max: 100 });
    expect(parseKeepAlive('max=3')).toEqual({ timeoutS: null, max: 3 });
    expect(parseKeepAlive('timeout=abc, foo=1')).toEqual({ timeoutS: null, max: null });
  });

  it('reuses a connection until a margin before the server timeout, the common 5 s when none is said', () => {
    expect(reuseWindowMs({ timeoutS: 5, max: 100 })).toBe(4000);
    expect(reuseWindowMs(null)).toBe(4000);
    expect(reuseWindowMs({ timeoutS: 1, max: null })).toBe(500);
    expect(reuseWindowMs({ timeoutS: 0, max: null })).toBe(0);
  });

  it('allows no more requests than the smallest served − 1 + max (fixed or counting-down servers)', () => {
    expect(requestLimit(Number.POSITIVE_INFINITY, 1, { timeoutS: 5, max: 100 })).toBe(100);
    expect(requestLimit(100, 7, { timeoutS: 5, max: 100 })).toBe(100);
    expect(requestLimit(100, 2, { timeoutS: 5, max: 98 })).toBe(99);
  });
});

describe('Http1Pool and the server keep-alive', () => {
  it('does not reuse a connection past the timeout the server announced', async () => {
    const { s, pool } = await setUp(() => ({ headers: ['Keep-Alive: timeout=1, max=100'] }));
    expect((await exchange(pool, s.port)).fail).toBeNull();
    await sleep(700); // past the 0.5 s reuse window of a 1 s server timeout
    expect(pool.idleCount).toBe(0);
    const second = await exchange(pool, s.port);
    expect(second).toEqual({ body: 'ok', fail: null, retries: 0 });
    expect(s.opened).toBe(2);
  });

  it('carries no more requests on a connection than the server allows (max=)', async () => {
    const { s, pool } = await setUp(() => ({ headers: ['Keep-Alive: timeout=5, max=2'] }));
    for (let i = 0; i < 5; i++) expect((await exchange(pool, s.port)).fail).toBeNull();
    expect(s.opened).toBe(3);
  });

  it('sends a request the server hung up on once more, on a new connection, and says so', async () => {
    // every connection answers its first request and hangs up on the next (closed while idle): with
    // two idle connections, a retry that took the other idle one would fail as well
    const { s, pool } = await setUp((_conn, nth) => (nth === 1 ? {} : 'hang-up'));
    await Promise.all([exchange(pool, s.port), exchange(pool, s.port)]);
    expect(pool.idleCount).toBe(2);
    const r = await exchange(pool, s.port);
    expect(r).toEqual({ body: 'ok', fail: null, retries: 1 });
    expect(s.opened).toBe(3);
  });

  it('stops reusing connections of a server that closes each one right after its answer', async () => {
    // llama-server b7501 ends every streamed answer so, while announcing keep-alive
    const { s, pool } = await setUp(() => ({
      headers: ['Keep-Alive: timeout=5, max=100'],
      closeAfter: true,
    }));
    const all: Outcome[] = [];
    for (let i = 0; i < 6; i++) all.push(await exchange(pool, s.port));
    expect(all.every((r) => r.fail === null && r.body === 'ok')).toBe(true);
    expect(all.reduce((n, r) => n + r.retries, 0)).toBeLessThanOrEqual(1);
    expect(pool.closesAfterEach).toBe(true);
  });

  it('a capped pool queues requests and never opens more than its cap', async () => {
    const { s, pool } = await setUp(() => ({ headers: ['Keep-Alive: timeout=5, max=100'] }), {
      maxConnections: 2,
    });
    const all = await Promise.all(Array.from({ length: 12 }, () => exchange(pool, s.port)));
    expect(all.every((r) => r.fail === null && r.body === 'ok')).toBe(true);
    expect(s.peakOpen).toBeLessThanOrEqual(2);
    expect(pool.openCount).toBeLessThanOrEqual(2);
  });

  it('preconnect closes idle connections beyond the count it is asked for', async () => {
    const { s, pool } = await setUp(() => ({}));
    await pool.preconnect(4, 2000);
    expect(pool.idleCount).toBe(4);
    await pool.preconnect(1, 2000);
    expect(pool.idleCount).toBe(1);
    for (let i = 0; i < 50 && s.open > 1; i++) await sleep(20);
    expect(s.open).toBe(1);
  });
});

describe('a streamed request retried on a new connection', () => {
  for (const transport of ['raw', 'node-http'] as const) {
    it(`completes, and its record counts the retry instead of failing (${transport})`, async () => {
      const sse = 'data: {"choices":[{"text":" a","finish_reason":"length"}]}\n\ndata: [DONE]\n\n';
      const s = await startRawServer((_conn, nth) =>
        nth === 1 ? { headers: ['Content-Type: text/event-stream'], body: sse } : 'hang-up',
      );
      cleanup.push(destroyAgents, () => s.close());
      const url = `http://127.0.0.1:${s.port}`;
      // the first request is answered; the second reuses its connection and is hung up on
      const send = () =>
        streamRequest({
          baseUrl: url,
          request: {
            method: 'POST',
            path: '/v1/completions',
            body: {},
            tokenAccounting: 'openai-final-usage',
          },
          originMs: 0,
          id: 0,
          levelIndex: 0,
          warmup: false,
          requestedOutputTokens: 1,
          timeouts: planDefaultTimeouts(),
          transport,
        });
      const first = await send();
      expect(first.error).toBeNull();
      expect(first.retries).toBeUndefined();
      const second = await send();
      expect(second.error).toBeNull();
      expect(second.retries).toBe(1);
      expect(s.opened).toBe(2);
    });
  }
});
