import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { measureClockOffset } from './clock-offset.js';

const servers: http.Server[] = [];
async function serve(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}
afterAll(() => {
  for (const s of servers) s.close();
});

describe('clock offset from the Date header', () => {
  it('finds a server clock set 1234.5 ms ahead within the bound it states', async () => {
    const AHEAD_MS = 1234.5;
    const url = await serve((_q, res) => {
      res.sendDate = false;
      res.setHeader('date', new Date(performance.timeOrigin + performance.now() + AHEAD_MS).toUTCString());
      res.end('{}');
    });
    const m = await measureClockOffset(url);
    expect(m).not.toBeNull();
    // the server's own clock and ours differ only by the setting above (same machine)
    expect(Math.abs(m!.offsetMs - AHEAD_MS)).toBeLessThanOrEqual(m!.uncertaintyMs + 1e-6);
  });

  it('says it cannot measure (null) when the server sends no Date header or is not there', async () => {
    const url = await serve((_q, res) => {
      res.sendDate = false;
      res.end('{}');
    });
    expect(await measureClockOffset(url, { maxMs: 300 })).toBeNull();
    expect(await measureClockOffset('http://127.0.0.1:1', { maxMs: 300 })).toBeNull();
  });
});
