import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ExchangeHandlers, Http1Pool } from './http1-pool.js';

interface Served {
  port: number;
  connections: number;
  server: http.Server;
}

async function serve(handler: http.RequestListener): Promise<Served> {
  const server = http.createServer(handler);
  const s: Served = { port: 0, connections: 0, server };
  server.on('connection', () => s.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  s.port = (server.address() as AddressInfo).port;
  return s;
}

const request = (port: number, path = '/'): Buffer =>
  Buffer.from(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 2\r\n\r\n{}`);

function exchange(
  pool: Http1Pool,
  bytes: Buffer,
): Promise<{ status: number; body: string; fail: string | null }> {
  return new Promise((resolve) => {
    let status = 0;
    let body = '';
    const h: ExchangeHandlers = {
      onHead: (head) => {
        status = head.status;
      },
      onBody: (buf, s, e) => {
        body += buf.toString('utf8', s, e);
      },
      onEnd: () => resolve({ status, body, fail: null }),
      onFail: (phase, message) => resolve({ status, body, fail: `${phase}: ${message}` }),
    };
    pool.exchange(bytes, h, 2000);
  });
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

describe('Http1Pool', () => {
  it('carries sequential requests over one kept-alive connection', async () => {
    const s = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      res.end('data: [DONE]\n\n');
    });
    const pool = new Http1Pool('127.0.0.1', s.port);
    cleanup.push(
      () => pool.destroy(),
      () => s.server.close(),
    );
    for (let i = 0; i < 3; i++) {
      const r = await exchange(pool, request(s.port));
      expect(r).toEqual({ status: 200, body: 'data: 1\n\ndata: [DONE]\n\n', fail: null });
    }
    expect(s.connections).toBe(1);
    expect(pool.idleCount).toBe(1);
  });

  it('opens a new connection when the server asked to close the last one', async () => {
    const s = await serve((_q, res) => {
      res.writeHead(200, { connection: 'close', 'content-length': '2' });
      res.end('ok');
    });
    const pool = new Http1Pool('127.0.0.1', s.port);
    cleanup.push(
      () => pool.destroy(),
      () => s.server.close(),
    );
    expect((await exchange(pool, request(s.port))).body).toBe('ok');
    expect((await exchange(pool, request(s.port))).body).toBe('ok');
    expect(s.connections).toBe(2);
  });

  it('still answers after the server closed the idle connection (dropped from the pool or retried once)', async () => {
    const s = await serve((_q, res) => {
      res.writeHead(200, { 'content-length': '2' });
      res.end('ok');
    });
    const pool = new Http1Pool('127.0.0.1', s.port);
    cleanup.push(
      () => pool.destroy(),
      () => s.server.close(),
    );
    await exchange(pool, request(s.port));
    s.server.closeIdleConnections();
    const r = await exchange(pool, request(s.port));
    expect(r).toEqual({ status: 200, body: 'ok', fail: null });
  });

  it('preconnect leaves the asked number of connections idle and requests use them', async () => {
    const s = await serve((_q, res) => {
      res.writeHead(200, { 'content-length': '2' });
      res.end('ok');
    });
    const pool = new Http1Pool('127.0.0.1', s.port);
    cleanup.push(
      () => pool.destroy(),
      () => s.server.close(),
    );
    await pool.preconnect(5, 2000);
    expect(pool.idleCount).toBe(5);
    await Promise.all(Array.from({ length: 5 }, () => exchange(pool, request(s.port))));
    expect(s.connections).toBe(5);
  });

  it('fails in the connect phase when nothing listens', async () => {
    const pool = new Http1Pool('127.0.0.1', 1);
    cleanup.push(() => pool.destroy());
    const r = await exchange(pool, request(1));
    expect(r.fail).toMatch(/^connect: could not reach 127\.0\.0\.1:1 \(ECONNREFUSED\)/);
  });
});
