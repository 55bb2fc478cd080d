// Picks free loopback TCP ports at plan time (the demo's servers, tests) for servers launched later.
// A port is free when it can be bound now; it is released at once, so the pick must not fall where the
// kernel hands out ports of its own: a port taken from the ephemeral range could be given to the next
// server that binds port 0 (or to an outgoing connection) before the launched server binds it, and that
// server's traffic would then reach someone else. So ports are drawn at random below the ephemeral range
// (Linux: /proc/sys/net/ipv4/ip_local_port_range), and from port 0 only where that range is unknown.
// Several ports are held open together so one call never returns the same port twice.

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** Where random picks are drawn from: [low, high), below the kernel's ephemeral range. */
function pickRange(): { low: number; high: number } | null {
  try {
    const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const high = Number(ephemeralLow);
    return Number.isInteger(high) && high > 12_000 ? { low: 10_000, high } : null;
  } catch {
    return null;
  }
}

function listen(port: number): Promise<Server | null> {
  const s = createServer();
  return new Promise((resolve) => {
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

const portOf = (s: Server): number => {
  const a = s.address();
  return typeof a === 'object' && a ? a.port : 0;
};

/** A held server on a free port: drawn below the ephemeral range where known, else the kernel's pick. */
async function holdFreePort(range: { low: number; high: number } | null): Promise<Server> {
  for (let attempt = 0; range && attempt < 50; attempt++) {
    const s = await listen(range.low + Math.floor(Math.random() * (range.high - range.low)));
    if (s) return s;
  }
  const s = await listen(0);
  if (!s) throw new Error('no free loopback port could be bound');
  return s;
}

export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const range = pickRange();
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await holdFreePort(range));
    return servers.map(portOf);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}
