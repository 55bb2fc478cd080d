// A remote machine as a ProcessHost over the system OpenSSH client (so users' keys, agents and
// ~/.ssh/config work). BatchMode, a connect timeout and connection reuse; every remote argv element
// is shell-quoted (shell-quote.ts), so no plan value can ever run as shell on the remote side.
// Environment values (launch.env: API keys, tokens) never go into an argv, where `ps` on either machine
// would show them: a command with env runs as `sh -s`, its script (exports, cd, exec) sent on stdin.

import { spawn as spawnChild } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import type {
  EnvironRead,
  ExecOptions,
  ExecResult,
  ProcessHost,
  ProcessInfo,
  SpawnedProcess,
  SpawnOptions,
} from './host.js';
import { execLocal } from './local-host.js';
import { openOutputSink } from './output-sink.js';
import { environEntry, listeningInodes, processInfoFromProc, socketInode } from './proc-parse.js';
import { shellJoin, shellQuote } from './shell-quote.js';

export interface SshTarget {
  user?: string;
  hostname: string;
  port?: number;
}

export interface SshHostOptions {
  connectTimeoutS?: number;
  /** Extra `ssh` arguments placed before the destination (e.g. ['-i', key, '-o', 'UserKnownHostsFile=...']). */
  sshArgs?: string[];
  /** Default timeout for exec when the caller gives none. */
  defaultTimeoutMs?: number;
}

/** ssh's own failures (exit 255 plus one of these) mean the host, not the command, failed. */
const SSH_FAILURE =
  /(Permission denied|Connection refused|Connection timed out|Could not resolve hostname|No route to host|Host key verification failed|Connection closed by|kex_exchange_identification|Operation timed out|Network is unreachable)/;

/** One sentence for an ssh transport failure, from ssh's stderr. */
export function describeSshFailure(description: string, stderr: string): string {
  const m = SSH_FAILURE.exec(stderr);
  const what = m
    ? m[1] === 'Permission denied'
      ? 'authentication failed (Permission denied; BatchMode allows only keys or an agent)'
      : m[1].toLowerCase()
    : stderr.trim().split('\n').pop() || 'ssh exited with status 255';
  return `Expected to reach ${description} over SSH; found: ${what}.`;
}

export class SshHost implements ProcessHost {
  readonly description: string;
  private readonly controlDir: string;
  private readonly baseArgs: string[];
  private readonly defaultTimeoutMs: number;

  constructor(
    readonly target: SshTarget,
    opts: SshHostOptions = {},
  ) {
    if (target.hostname.startsWith('-') || (target.user ?? '').startsWith('-')) {
      throw new BenchgateError('BG_E_PLAN_INVALID', `Expected an SSH host name; found "${target.hostname}".`);
    }
    const port = target.port ?? 22;
    this.description = `ssh://${target.user ? `${target.user}@` : ''}${target.hostname}:${port}`;
    this.controlDir = mkdtempSync(join(tmpdir(), 'bg-ssh-'));
    this.defaultTimeoutMs = opts.defaultTimeoutMs ?? 60_000;
    this.baseArgs = [
      '-o',
      'BatchMode=yes',
      '-o',
      `ConnectTimeout=${opts.connectTimeoutS ?? 10}`,
      '-o',
      'ControlMaster=auto',
      '-o',
      `ControlPath=${join(this.controlDir, '%C')}`,
      '-o',
      'ControlPersist=60',
      '-o',
      'StrictHostKeyChecking=accept-new',
      '-p',
      String(port),
      ...(opts.sshArgs ?? []),
      '--',
      `${target.user ? `${target.user}@` : ''}${target.hostname}`,
    ];
  }

  /** The remote command line for argv with cwd, every element quoted (env goes in a stdin script, below). */
  static remoteCommand(argv: string[], opts: ExecOptions = {}): string {
    const cmd = shellJoin(argv);
    return opts.cwd ? `cd ${shellQuote(opts.cwd)} && ${cmd}` : cmd;
  }

  /**
   * The script `sh -s` reads on stdin to run argv with env and cwd: the exports (values quoted), the
   * directory, then `exec` of the command with stdin from /dev/null (it must not read the script).
   * `announcePid` prints the shell's PID first, which exec keeps for the command.
   */
  static stdinScript(argv: string[], opts: ExecOptions & { announcePid?: boolean } = {}): string {
    const lines: string[] = [];
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
        throw new BenchgateError('BG_E_HOST', `Expected an environment variable name; found "${k}".`);
      lines.push(`export ${k}=${shellQuote(v)}`);
    }
    if (opts.cwd) lines.push(`cd ${shellQuote(opts.cwd)} || exit 127`);
    if (opts.announcePid) lines.push('echo $$');
    lines.push(`exec ${shellJoin(argv)} </dev/null`);
    return `${lines.join('\n')}\n`;
  }

  private async ssh(remote: string, timeoutMs: number, stdin?: string): Promise<ExecResult> {
    const r = await execLocal(['ssh', ...this.baseArgs, remote], { timeoutMs, stdin });
    if (r.code === 255 && SSH_FAILURE.test(r.stderr)) {
      throw new BenchgateError('BG_E_HOST', describeSshFailure(this.description, r.stderr));
    }
    if (r.code === 127 && /command not found: ssh/.test(r.stderr)) {
      throw new BenchgateError('BG_E_HOST', 'Expected the OpenSSH client `ssh` on PATH; found none.');
    }
    return r;
  }

  exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    if (opts.env && Object.keys(opts.env).length > 0)
      return this.ssh('sh -s', timeoutMs, SshHost.stdinScript(argv, opts));
    return this.ssh(SshHost.remoteCommand(argv, opts), timeoutMs);
  }

  async readFile(path: string): Promise<string | null> {
    const r = await this.exec(['cat', '--', path]);
    if (r.code === 0) return r.stdout;
    if (/No such file or directory/.test(r.stderr)) return null;
    throw new BenchgateError(
      'BG_E_HOST',
      `Expected to read ${path} on ${this.description}; found: ${r.stderr.trim() || `cat exited ${r.code}`}.`,
    );
  }

  async close(): Promise<void> {
    await execLocal(['ssh', '-O', 'exit', ...this.baseArgs], { timeoutMs: 5000 });
    rmSync(this.controlDir, { recursive: true, force: true });
  }

  async listeningPids(port: number): Promise<number[]> {
    const sep = `--bg-${randomBytes(8).toString('hex')}--`;
    const script =
      'cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; printf "\\n%s\\n" "$1"; LC_ALL=C ls -l /proc/[0-9]*/fd/ 2>/dev/null; exit 0';
    const r = await this.exec(['sh', '-c', script, 'sh', sep]);
    const [tcp, fds = ''] = r.stdout.split(`\n${sep}\n`);
    const inodes = new Set(listeningInodes(tcp, port));
    if (inodes.size === 0) return [];
    const pids = new Set<number>();
    let current: number | null = null;
    for (const line of fds.split('\n')) {
      const head = /^\/proc\/(\d+)\/fd\/?:$/.exec(line);
      if (head) {
        current = Number(head[1]);
        continue;
      }
      const arrow = line.indexOf(' -> ');
      if (current !== null && arrow > 0) {
        const inode = socketInode(line.slice(arrow + 4));
        if (inode !== null && inodes.has(inode)) pids.add(current);
      }
    }
    return [...pids].sort((a, b) => a - b);
  }

  async environValue(pid: number, name: string): Promise<EnvironRead> {
    if (!Number.isInteger(pid) || pid <= 0) return { kind: 'unreadable' };
    const r = await this.exec(['cat', `/proc/${pid}/environ`]);
    return environEntry(r.code === 0 ? r.stdout : null, name);
  }

  async processInfo(pid: number): Promise<ProcessInfo | null> {
    if (!Number.isInteger(pid) || pid <= 0) return null;
    const sep = `--bg-${randomBytes(8).toString('hex')}--`;
    const script = [
      'p=$1; s=$2',
      'cat /proc/$p/stat 2>/dev/null || exit 3',
      'printf "\\n%s\\n" "$s"; cat /proc/$p/cmdline 2>/dev/null',
      'printf "\\n%s\\n" "$s"; cat /proc/$p/environ 2>/dev/null || printf "%s" "$s-unreadable"',
      'printf "\\n%s\\n" "$s"; grep "^btime" /proc/stat; getconf CLK_TCK',
    ].join('\n');
    const r = await this.exec(['sh', '-c', script, 'sh', String(pid), sep]);
    if (r.code !== 0) return null;
    const [stat, cmdline = '', environ = '', bootText = ''] = r.stdout.split(`\n${sep}\n`);
    const tck = Number(bootText.trim().split('\n').pop());
    return processInfoFromProc(pid, {
      stat,
      cmdline,
      environ: environ === `${sep}-unreadable` ? null : environ,
      bootText,
      clockTicksPerS: tck > 0 ? tck : 100,
    });
  }

  async spawn(argv: string[], opts: SpawnOptions = {}): Promise<SpawnedProcess> {
    const script = SshHost.stdinScript(argv, { env: opts.env, cwd: opts.cwd, announcePid: true });
    const child = spawnChild('ssh', [...this.baseArgs, 'sh -s'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => undefined); // ssh that exits at once (unreachable host) reports below
    child.stdin.end(script);
    const out = openOutputSink(argv, opts);
    let stderrText = '';
    const pid = await new Promise<number>((resolve, reject) => {
      let first = '';
      let gotPid = false;
      child.stdout.on('data', (d: Buffer) => {
        if (gotPid) {
          out.stdout(d.toString('utf8'));
          return;
        }
        first += d.toString('utf8');
        const nl = first.indexOf('\n');
        if (nl < 0) return;
        gotPid = true;
        resolve(Number(first.slice(0, nl)));
        const rest = first.slice(nl + 1);
        if (rest) out.stdout(rest);
      });
      child.stderr.on('data', (d: Buffer) => {
        if (stderrText.length < 64 * 1024) stderrText += d.toString('utf8');
        out.stderr(d.toString('utf8'));
      });
      child.on('error', (e) =>
        reject(new BenchgateError('BG_E_HOST', `Expected to run ssh; found: ${e.message}.`)),
      );
      child.on('close', () => {
        if (!gotPid)
          reject(new BenchgateError('BG_E_HOST', describeSshFailure(this.description, stderrText)));
      });
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      child.on('close', (code, signal) => {
        void out.end();
        resolve({ code, signal });
      });
    });
    return {
      pid,
      exited,
      kill: async (signal) => {
        const sig = signal.replace(/^SIG/, '');
        const script =
          'g=$(ps -o pgid= -p "$2" 2>/dev/null | tr -d " "); if [ -n "$g" ]; then kill -s "$1" -- "-$g"; else kill -s "$1" "$2"; fi';
        await this.exec(['sh', '-c', script, 'sh', sig, String(pid)], { timeoutMs: 15_000 }).catch(
          () => undefined,
        );
      },
    };
  }
}
