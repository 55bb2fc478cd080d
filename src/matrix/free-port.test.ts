import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPorts } from './free-port.js';

// Ports picked for servers launched later must not be ones the kernel may hand to a port-0 server in the
// meantime (another test's simulator took such a port once and received a launched config's traffic).

describe('free loopback ports', () => {
  it('are distinct, bindable, and below the kernel’s ephemeral range', async () => {
    const ports = await freeLoopbackPorts(8);
    expect(new Set(ports).size).toBe(8);
    const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    for (const p of ports) expect(p).toBeLessThan(Number(ephemeralLow));
    for (const p of ports) {
      const s = createServer();
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(p, '127.0.0.1', () => resolve());
      });
      await new Promise<void>((r) => s.close(() => r()));
    }
  });
});
