// Test support: a REAL OpenSSH server on 127.0.0.1 on a free non-default port, with a generated host
// key and client key in a temp dir, key-based login only. Tests talk to it through SshHost.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPorts } from '../../matrix/free-port.js';
import { hasTool } from '../../test-support/needs.js';
import { execLocal } from '../local-host.js';
import type { SshHostOptions } from '../ssh-host.js';

export const SSHD_PATH = '/usr/sbin/sshd';

export interface TestSshd {
  port: number;
  user: string;
  dir: string;
  /** Client key accepted by the server. */
  clientKey: string;
  /** A key the server does not accept (for auth-failure tests). */
  strangerKey: string;
  /** SshHost options that use the generated key and a private known_hosts, ignoring ~/.ssh/config. */
  sshOptions(key?: string): SshHostOptions;
  stop(): Promise<void>;
}

/** True when OpenSSH's sshd is installed; otherwise the skipped tests say why on stderr. */
export function sshdAvailable(): boolean {
  return hasTool(SSHD_PATH, 'the tests against a real sshd', 'Debian: apt-get install openssh-server');
}

/** Below the ephemeral range, so no port-0 server of another test takes it before sshd binds it. */
async function freePort(): Promise<number> {
  const [port] = await freeLoopbackPorts(1);
  return port;
}

async function waitForPort(port: number, child: ChildProcess, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd did not listen on ${port} within ${limitMs} ms`);
}

async function keygen(path: string): Promise<void> {
  const r = await execLocal(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', path], {
    timeoutMs: 20_000,
  });
  if (r.code !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

export async function startTestSshd(): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'bg-sshd-'));
  const hostKey = join(dir, 'host_ed25519');
  const clientKey = join(dir, 'client_ed25519');
  const strangerKey = join(dir, 'stranger_ed25519');
  await Promise.all([keygen(hostKey), keygen(clientKey), keygen(strangerKey)]);
  const { readFileSync } = await import('node:fs');
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${clientKey}.pub`), { mode: 0o600 });
  // privilege separation directory sshd insists on when run as root
  if (process.getuid?.() === 0 && !existsSync('/run/sshd'))
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${hostKey}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    'StrictModes no',
    'UsePAM no',
    `PidFile ${join(dir, 'sshd.pid')}`,
    'LogLevel ERROR',
    'MaxStartups 50',
    'MaxSessions 50',
  ].join('\n');
  writeFileSync(join(dir, 'sshd_config'), `${config}\n`);
  const child = spawn(SSHD_PATH, ['-D', '-e', '-f', join(dir, 'sshd_config')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  try {
    await waitForPort(port, child, 10_000);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}: ${stderr}`);
  }
  const knownHosts = join(dir, 'known_hosts');
  return {
    port,
    user: userInfo().username,
    dir,
    clientKey,
    strangerKey,
    sshOptions: (key = clientKey) => ({
      connectTimeoutS: 5,
      sshArgs: [
        '-F',
        '/dev/null',
        '-i',
        key,
        '-o',
        'IdentitiesOnly=yes',
        '-o',
        `UserKnownHostsFile=${knownHosts}`,
      ],
    }),
    stop: async () => {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
