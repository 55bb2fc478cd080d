import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SshHost } from '../hosts/ssh-host.js';
import { sshdAvailable, startTestSshd, type TestSshd } from '../hosts/test-support/sshd.js';
import { checkSim } from './test-support.js';

describe.skipIf(!sshdAvailable())(
  'checkpoint over SSH (real sshd on loopback, key-based, non-default port)',
  () => {
    let sshd: TestSshd;
    let host: SshHost;
    beforeAll(async () => {
      sshd = await startTestSshd();
      host = new SshHost({ user: sshd.user, hostname: '127.0.0.1', port: sshd.port }, sshd.sshOptions());
    });
    afterAll(async () => {
      await host?.close();
      await sshd?.stop();
    });

    it('reads the log, the server process and tools remotely, and never runs plan values as shell', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bg-remote-'));
      const marker = join(dir, 'pwned');
      const tool = join(dir, 'bench.py');
      writeFileSync(
        tool,
        'import argparse\np = argparse.ArgumentParser()\np.add_argument("--concurrency")\np.parse_args()\n',
      );
      const r = await checkSim(
        { flavor: 'sglang', engineArgs: ['--tp-size', '2'] },
        ({ url, logFile }) => ({
          target: { url },
          host: `ssh://${sshd.user}@127.0.0.1:${sshd.port}`,
          expect: {
            smoke: false,
            wait: '5s',
            config: { tp_size: 2 },
            logs: [
              { path: logFile, contains: 'server_args=ServerArgs(' },
              { path: `${logFile}'; touch ${marker}; echo '`, required: false },
              { path: `$(touch ${marker})`, required: false },
            ],
          },
          tools: [
            { path: tool, help: 'python3 {path} --help', accepts: ['--concurrency', '--num-requests'] },
            { path: `${tool}\ntouch ${marker}`, required: false },
            { path: tool, dry_run: `python3 {path} --concurrency "$(touch ${marker})"`, required: false },
          ],
        }),
        { host },
      );
      expect(r.byId('process').status).toBe('pass');
      expect(r.byId('process').evidence[0].where).toContain(
        `ssh://${sshd.user}@127.0.0.1:${sshd.port}:/proc/${process.pid}/cmdline`,
      );
      expect(r.byId('log.0.fresh').status).toBe('pass');
      expect(r.byId('log.0.contains.0').status).toBe('pass');
      expect(r.byId('log.1.read').found).toBe('no such file');
      expect(r.byId('log.2.read').found).toBe('no such file');
      expect(r.byId('config.tp_size').status).toBe('pass');
      expect(r.byId('tool.0.flags').found).toBe('not accepted: --num-requests');
      expect(r.byId('tool.1.exists').status).toBe('fail');
      expect(existsSync(marker)).toBe(false);
    });

    it('turns an SSH authentication failure into failed findings, not a crash', async () => {
      const stranger = new SshHost(
        { user: sshd.user, hostname: '127.0.0.1', port: sshd.port },
        sshd.sshOptions(sshd.strangerKey),
      );
      try {
        const r = await checkSim(
          { flavor: 'sglang' },
          ({ url, logFile }) => ({
            target: { url },
            expect: { smoke: false, wait: '5s', logs: [{ path: logFile }] },
            tools: [{ path: '/bin/sh' }],
          }),
          { host: stranger },
        );
        expect(r.byId('log.0.read').found).toMatch(/authentication failed/);
        expect(r.byId('tool.0').found).toMatch(/authentication failed/);
        expect(r.byId('process').status).toBe('warn');
        expect(r.report.ok).toBe(false);
      } finally {
        await stranger.close();
      }
    });
  },
);
