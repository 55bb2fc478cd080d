// The simulated engines treat connections as their HTTP servers do: llama-server's httplib announces
// its keep-alive limits and closes after errors and after 100 requests, uvicorn announces nothing,
// and `httpThreads` leaves a connection beyond the cap unserved until a served one closes.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from './api.js';
import { startSimulator } from './index.js';

const sims: SimulatorHandle[] = [];
afterEach(async () => {
  for (const s of sims.splice(0)) await s.close();
});

async function sim(flavor: 'llamacpp' | 'vllm', httpThreads?: number): Promise<SimulatorHandle> {
  const s = await startSimulator({ flavor, profile: 'fixed', loadTimeS: 0, httpThreads });
  sims.push(s);
  await s.ready;
  return s;
}

/** A raw connection that sends GETs and collects what comes back. */
function connect(port: number): { socket: net.Socket; received: () => string; get(path: string): void } {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d) => {
    text += d.toString('latin1');
  });
  socket.on('error', () => {});
  return {
    socket,
    received: () => text,
    get: (path) => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`),
  };
}

const until = async (cond: () => boolean, ms = 3000): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return cond();
};

const answers = (text: string) => text.split('HTTP/1.1 ').slice(1);

describe('simulated HTTP servers and connections', () => {
  it('llamacpp announces Keep-Alive timeout=5, max=100 and closes after an error answer', async () => {
    const s = await sim('llamacpp');
    const ok = await fetch(`${s.url}/health`);
    expect(ok.headers.get('keep-alive')).toBe('timeout=5, max=100');
    const missing = await fetch(`${s.url}/no-such-path`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('connection')).toBe('close');
    expect(missing.headers.get('keep-alive')).toBeNull();
  });

  it('llamacpp closes a connection with its 100th answer', async () => {
    const s = await sim('llamacpp');
    const c = connect(s.port);
    for (let i = 0; i < 100; i++) c.get('/health');
    let closed = false;
    c.socket.on('close', () => {
      closed = true;
    });
    expect(await until(() => closed && answers(c.received()).length === 100)).toBe(true);
    const all = answers(c.received());
    expect(all[98]).toContain('Keep-Alive: timeout=5, max=100');
    expect(all[99]).toContain('Connection: close');
  });

  it('vllm (uvicorn) announces no Keep-Alive header', async () => {
    const s = await sim('vllm');
    const ok = await fetch(`${s.url}/health`);
    expect(ok.headers.get('keep-alive')).toBeNull();
  });

  it('httpThreads: a connection beyond the cap waits unserved until a served one closes, and is counted', async () => {
    const s = await sim('llamacpp', 2);
    const [a, b, c] = [connect(s.port), connect(s.port), connect(s.port)];
    for (const x of [a, b, c]) x.get('/health');
    expect(await until(() => answers(a.received()).length === 1 && answers(b.received()).length === 1)).toBe(
      true,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(c.received()).toBe('');
    a.socket.destroy();
    expect(await until(() => answers(c.received()).length === 1)).toBe(true);
    b.socket.destroy();
    c.socket.destroy();
    const seen = (await (await fetch(`${s.url}/_sim/connections`)).json()) as Record<string, unknown>;
    expect(seen).toMatchObject({ peakOpen: 3, peakWaiting: 1, httpThreads: 2 });
  });
});
