import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execLocal } from './local-host.js';
import { openHost, parseHostSpec } from './open-host.js';
import { SshHost } from './ssh-host.js';
import { sshdAvailable, startTestSshd, type TestSshd } from './test-support/sshd.js';

describe('parseHostSpec', () => {
  it('parses local and ssh URLs and rejects option-looking host names', () => {
    expect(parseHostSpec('local')).toEqual({ kind: 'local' });
    expect(parseHostSpec('ssh://root@gpu-box:2222')).toEqual({
      kind: 'ssh',
      target: { user: 'root', hostname: 'gpu-box', port: 2222 },
    });
    expect(() => parseHostSpec('ssh://-oProxyCommand=touch')).toThrow(/ssh:\/\/user@host:port/);
    expect(() => parseHostSpec('ftp://x')).toThrow(/found "ftp:\/\/x"/);
  });
});

describe.skipIf(!sshdAvailable())('SshHost against a real sshd on loopback', () => {
  let sshd: TestSshd;
  let host: SshHost;
  beforeAll(async () => {
    sshd = await startTestSshd();
    host = (await openHost(`ssh://${sshd.user}@127.0.0.1:${sshd.port}`, sshd.sshOptions())) as SshHost;
  });
  afterAll(async () => {
    await host?.close();
    await sshd?.stop();
  });

  it('runs argv remotely with every element passed literally', async () => {
    const r = await host.exec(['printf', '%s|', 'a b', "it's", '$HOME', 'x\ny']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("a b|it's|$HOME|x\ny|");
    expect(host.description).toBe(`ssh://${sshd.user}@127.0.0.1:${sshd.port}`);
  });

  it('never runs a crafted plan value as shell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-inject-'));
    const marker = join(dir, 'pwned');
    const crafted = [
      `x; touch ${marker}`,
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      `'; touch ${marker}; '`,
      `a\ntouch ${marker}`,
    ];
    for (const value of crafted) {
      const r = await host.exec(['echo', value], { env: { PLAN_VALUE: value }, cwd: dir });
      expect(r.stdout).toBe(`${value}\n`);
      expect(await host.readFile(join(dir, value))).toBeNull();
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('reads files with cat and tells missing from unreadable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-ssh-read-'));
    writeFileSync(join(dir, '-n weird name.log'), 'line 1\n');
    expect(await host.readFile(join(dir, '-n weird name.log'))).toBe('line 1\n');
    expect(await host.readFile(join(dir, 'absent.log'))).toBeNull();
    await expect(host.readFile(dir)).rejects.toMatchObject({ code: 'BG_E_HOST' });
  });

  it('finds the listening PID and reads its process info remotely', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    try {
      expect(await host.listeningPids(port)).toEqual([process.pid]);
      const info = await host.processInfo(process.pid);
      expect(info?.argv[0]).toContain('node');
      expect(info?.ppid).toBe(process.ppid);
      expect(Date.parse(info?.startTime ?? '')).toBeLessThanOrEqual(Date.now());
      expect(await host.processInfo(2 ** 22 + 999)).toBeNull();
    } finally {
      srv.close();
    }
  });

  it('spawns a remote process, streams its lines, reads its launch token and kills its group', async () => {
    const lines: string[] = [];
    const p = await host.spawn(['sh', '-c', 'echo ready; sleep 30'], {
      onLine: (l) => lines.push(l),
      env: { BENCHGATE_LAUNCH_TOKEN: 'c0ffee42' },
    });
    expect(p.pid).toBeGreaterThan(0);
    while (!lines.includes('ready')) await new Promise((r) => setTimeout(r, 20));
    // the launch token a resume checks is read from the remote /proc/<pid>/environ
    expect(await host.environValue(p.pid, 'BENCHGATE_LAUNCH_TOKEN')).toEqual({
      kind: 'value',
      value: 'c0ffee42',
    });
    expect(await host.environValue(p.pid, 'BG_NOT_SET_ANYWHERE')).toEqual({ kind: 'absent' });
    await p.kill('SIGTERM');
    await p.exited;
    expect(await host.processInfo(p.pid).then((i) => i?.state ?? 'gone')).toMatch(/gone|Z/);
  });

  it('keeps launch environment values out of every argv: ps on either machine never shows them', async () => {
    // loopback: this machine is both ends, so one ps sees the local ssh client and the remote shell
    const secret = `sk-${Math.random().toString(36).slice(2)}-secret`;
    const seen: string[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const ps = await execLocal(['ps', '-eo', 'args'], { timeoutMs: 5000 });
        if (ps.stdout.includes(secret)) seen.push(ps.stdout.split('\n').find((l) => l.includes(secret))!);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const env = { BENCH_API_KEY: secret, WEIRD: "a'b $(x)" };
    const lines: string[] = [];
    const p = await host.spawn(['sh', '-c', 'echo "key=$BENCH_API_KEY weird=$WEIRD"; sleep 30'], {
      env,
      onLine: (l) => lines.push(l),
    });
    while (!lines.some((l) => l.startsWith('key='))) await new Promise((r) => setTimeout(r, 20));
    const ran = await host.exec(['sh', '-c', 'sleep 0.5; printenv BENCH_API_KEY'], { env });
    await new Promise((r) => setTimeout(r, 300));
    watching = false;
    await watch;
    await p.kill('SIGTERM');
    await p.exited;
    // the process got its environment, and the key it printed is scrubbed from its output (output-sink.ts)
    expect(lines).toContain(`key=<redacted> weird=a'b $(x)`);
    expect(ran.stdout).toBe(`${secret}\n`);
    expect(seen).toEqual([]);
  });

  it('turns an authentication failure into a clear BG_E_HOST sentence', async () => {
    const stranger = new SshHost(
      { user: sshd.user, hostname: '127.0.0.1', port: sshd.port },
      sshd.sshOptions(sshd.strangerKey),
    );
    try {
      await expect(stranger.exec(['true'])).rejects.toMatchObject({
        code: 'BG_E_HOST',
        message: expect.stringContaining('authentication failed'),
      });
    } finally {
      await stranger.close();
    }
  });

  it('turns an unreachable port into a clear BG_E_HOST sentence', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    await new Promise((r) => srv.close(r));
    const nobody = new SshHost({ hostname: '127.0.0.1', port }, sshd.sshOptions());
    try {
      await expect(nobody.exec(['true'])).rejects.toMatchObject({
        code: 'BG_E_HOST',
        message: expect.stringContaining('connection refused'),
      });
    } finally {
      await nobody.close();
    }
  });
});
