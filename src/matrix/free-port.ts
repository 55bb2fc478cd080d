// Picks free loopback TCP ports at plan time (the demo's servers, tests): bind port 0, read it, release.
// Several ports are held open together so one call never returns the same port twice.

import { createServer, type Server } from 'node:net';

export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const s = createServer();
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => resolve());
      });
      servers.push(s);
    }
    return servers.map((s) => {
      const a = s.address();
      return typeof a === 'object' && a ? a.port : 0;
    });
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}
