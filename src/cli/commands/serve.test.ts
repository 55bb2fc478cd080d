import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../test-support/run-cli.js';

// The real CLI's `serve` against a port this test process holds.
describe('benchgate serve', () => {
  let holder: Server;
  let port: number;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => holder.close(() => r())));

  it('on a busy port exits 2 with one line naming the port and the PID holding it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-serve-busy-'));
    mkdirSync(join(dir, 'results'));
    const r = await runCli(['serve', '--port', String(port), '--results', join(dir, 'results')], {
      cwd: dir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('internal error');
    expect(r.stderr).toContain(`127.0.0.1:${port} is already in use by PID ${process.pid}`);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
