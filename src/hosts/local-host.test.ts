import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalHost } from './local-host.js';

const host = new LocalHost();

describe('LocalHost', () => {
  it('runs argv without a shell, so metacharacters stay literal', async () => {
    const r = await host.exec(['echo', '$(id)', ';', 'x']);
    expect(r).toMatchObject({ code: 0, stdout: '$(id) ; x\n', timedOut: false });
  });

  it('reports a missing executable as exit 127 with a clear message', async () => {
    const r = await host.exec(['benchgate-no-such-tool-xyz']);
    expect(r.code).toBe(127);
    expect(r.stderr).toContain('command not found: benchgate-no-such-tool-xyz');
  });

  it('kills a command that exceeds its timeout', async () => {
    const r = await host.exec(['sleep', '5'], { timeoutMs: 100 });
    expect(r.timedOut).toBe(true);
    expect(r.code).toBeNull();
  });

  it('reads files, returns null for a missing one and throws BG_E_HOST for a directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-lh-'));
    writeFileSync(join(dir, 'a.log'), 'hello\n');
    expect(await host.readFile(join(dir, 'a.log'))).toBe('hello\n');
    expect(await host.readFile(join(dir, 'missing.log'))).toBeNull();
    await expect(host.readFile(dir)).rejects.toMatchObject({ code: 'BG_E_HOST' });
  });

  it('finds this process listening on a port and reads its start time, argv and redacted env', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    try {
      expect(await host.listeningPids(port)).toContain(process.pid);
      const info = await host.processInfo(process.pid);
      expect(info?.argv[0]).toContain('node');
      expect(info?.ppid).toBe(process.ppid);
      const startedMsAgo = Date.now() - Date.parse(info?.startTime ?? '');
      expect(startedMsAgo).toBeGreaterThanOrEqual(-1000);
      expect(startedMsAgo).toBeLessThan(process.uptime() * 1000 + 5000);
      expect(await host.processInfo(2 ** 22 + 12345)).toBeNull();
    } finally {
      srv.close();
    }
  });

  it('reads one environment variable of a process unredacted, tells absent from unreadable', async () => {
    const p = await host.spawn([process.execPath, '-e', 'setInterval(() => {}, 1000)'], {
      env: { BENCHGATE_LAUNCH_TOKEN: 'feedface01' },
    });
    try {
      expect(await host.environValue(p.pid, 'BENCHGATE_LAUNCH_TOKEN')).toEqual({
        kind: 'value',
        value: 'feedface01',
      });
      expect((await host.processInfo(p.pid))?.env?.BENCHGATE_LAUNCH_TOKEN).toBe('<redacted>');
      expect(await host.environValue(p.pid, 'BG_NOT_SET_ANYWHERE')).toEqual({ kind: 'absent' });
      expect(await host.environValue(2 ** 30, 'BENCHGATE_LAUNCH_TOKEN')).toEqual({ kind: 'unreadable' });
    } finally {
      await p.kill('SIGKILL');
    }
  });

  it('spawns a process group, captures output to a file and lines, and kills the whole group', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-lh-'));
    const script = join(dir, 'server.sh');
    writeFileSync(script, '#!/bin/sh\necho started\nsleep 30 &\necho "child $!"\nwait\n');
    chmodSync(script, 0o755);
    const lines: string[] = [];
    const out = join(dir, 'out.log');
    const p = await host.spawn([script], { outputFile: out, onLine: (l) => lines.push(l) });
    while (lines.length < 2) await new Promise((r) => setTimeout(r, 20));
    const childPid = Number(lines[1].split(' ')[1]);
    expect((await host.processInfo(childPid))?.ppid).toBe(p.pid);
    await p.kill('SIGTERM');
    const exit = await p.exited;
    expect(exit.signal).toBe('SIGTERM');
    // the grandchild got the signal too (it was in the group): it is gone or a zombie awaiting reaping
    let st = (await host.processInfo(childPid))?.state;
    for (let i = 0; i < 100 && st !== undefined && st !== 'Z'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      st = (await host.processInfo(childPid))?.state;
    }
    expect(st === undefined || st === 'Z').toBe(true);
    expect(readFileSync(out, 'utf8')).toContain('started\n');
  });
});
