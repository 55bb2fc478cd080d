import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureServer, startFixtureServer } from '../engines/fixture-server.js';
import { freeLoopbackPorts } from '../matrix/free-port.js';
import { createTargetHttp } from './target-http.js';

describe('createTargetHttp', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer({
      '/server_info': { body: '{"tp_size": 8, "x": Infinity}', contentType: 'application/json' },
      '/health': { status: 503, body: '' },
      '/metrics': 'vllm:num_requests_running 1\n',
    });
  });
  afterAll(() => server.close());

  it('returns status, content type, text and tolerant JSON', async () => {
    const http = createTargetHttp(`${server.url}/`);
    const doc = await http.request('/server_info');
    expect(doc.status).toBe(200);
    expect(doc.contentType).toContain('application/json');
    expect(doc.json).toEqual({ tp_size: 8, x: Infinity });
    expect(doc.url).toBe(`${server.url}/server_info`);
    expect(doc.error).toBeUndefined();
  });

  it('reports HTTP error statuses without throwing', async () => {
    const http = createTargetHttp(server.url);
    const health = await http.request('health');
    expect(health.status).toBe(503);
    const missing = await http.request('/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ detail: 'Not Found' });
    const metrics = await http.request('/metrics');
    expect(metrics.json).toBeUndefined();
    expect(metrics.text).toContain('num_requests_running');
  });

  it('turns a refused connection into BG_E_CONNECT', async () => {
    const port = await closedPort();
    const doc = await createTargetHttp(`http://127.0.0.1:${port}`).request('/health');
    expect(doc.status).toBeNull();
    expect(doc.error?.code).toBe('BG_E_CONNECT');
    expect(doc.error?.message).toContain(`127.0.0.1:${port}`);
  });

  it('turns a server that never answers into BG_E_TOTAL_TIMEOUT', async () => {
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((sock) => {
      sockets.push(sock);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const doc = await createTargetHttp(`http://127.0.0.1:${port}`, { timeoutMs: 150 }).request('/health');
      expect(doc.error?.code).toBe('BG_E_TOTAL_TIMEOUT');
    } finally {
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});

async function closedPort(): Promise<number> {
  const [port] = await freeLoopbackPorts(1); // below the ephemeral range: no port-0 server lands there
  return port;
}
