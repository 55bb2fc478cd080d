// The local machine as a ProcessHost: argv-only child processes (no shell), timeouts, detached
// process groups for servers, and /proc readers for the server-process and leftover checks.

import { spawn as spawnChild } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
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
import { openOutputSink } from './output-sink.js';
import { environEntry, listeningInodes, processInfoFromProc, socketInode } from './proc-parse.js';

const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;

/** Runs argv locally and collects its output; a missing executable yields code 127, never a throw. */
/** Runs argv locally; `stdin` (when given) is written to the process's standard input, then closed. */
export function execLocal(argv: string[], opts: ExecOptions & { stdin?: string } = {}): Promise<ExecResult> {
  return new Promise((resolve) => {
    if (argv.length === 0) {
      resolve({ code: 127, stdout: '', stderr: 'empty command', timedOut: false });
      return;
    }
    const child = spawnChild(argv[0], argv.slice(1), {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // the input (or none: end of file at once); a command that exits without reading it is no error
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin ?? '');
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let settled = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (stdout.length < MAX_CAPTURE_BYTES) stdout += d;
    });
    child.stderr.on('data', (d: string) => {
      if (stderr.length < MAX_CAPTURE_BYTES) stderr += d;
    });
    const timer =
      opts.timeoutMs === undefined
        ? null
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, opts.timeoutMs);
    const finish = (r: ExecResult) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve(r);
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      const msg =
        e.code === 'ENOENT' ? `command not found: ${argv[0]}` : `could not run ${argv[0]}: ${e.message}`;
      finish({ code: 127, stdout, stderr: stderr + msg, timedOut: false });
    });
    child.on('close', (code) => finish({ code: timedOut ? null : code, stdout, stderr, timedOut }));
  });
}

let clkTckCache: number | null = null;
async function clockTicksPerS(): Promise<number> {
  if (clkTckCache !== null) return clkTckCache;
  const r = await execLocal(['getconf', 'CLK_TCK'], { timeoutMs: 5000 });
  const n = Number(r.stdout.trim());
  clkTckCache = r.code === 0 && n > 0 ? n : 100;
  return clkTckCache;
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

export class LocalHost implements ProcessHost {
  readonly description = 'local';

  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult> {
    return execLocal(argv, opts);
  }

  async readFile(path: string): Promise<string | null> {
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      throw new BenchgateError(
        'BG_E_HOST',
        `Expected to read ${path} on the local host; found ${code ?? 'an error'}.`,
        {
          cause: e,
        },
      );
    }
  }

  async close(): Promise<void> {}

  async spawn(argv: string[], opts: SpawnOptions = {}): Promise<SpawnedProcess> {
    if (argv.length === 0)
      throw new BenchgateError('BG_E_HOST', 'Expected a command to spawn; found an empty argv.');
    const out = openOutputSink(argv, opts);
    const child = spawnChild(argv[0], argv.slice(1), {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', out.stdout);
    child.stderr.on('data', out.stderr);
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      child.on('error', (e) => {
        out.note(`benchgate: could not start ${argv[0]}: ${e.message}\n`);
        void out.end();
        resolve({ code: 127, signal: null });
      });
      child.on('close', (code, signal) => {
        void out.end();
        resolve({ code, signal });
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (e) =>
        reject(
          new BenchgateError('BG_E_HOST', `Expected to start ${argv[0]}; found: ${e.message}.`, { cause: e }),
        ),
      );
    });
    const pid = child.pid ?? -1;
    return {
      pid,
      exited,
      kill: async (signal) => {
        try {
          process.kill(-pid, signal);
        } catch {
          try {
            child.kill(signal);
          } catch {
            // already gone
          }
        }
      },
    };
  }

  async listeningPids(port: number): Promise<number[]> {
    const inodes = new Set<number>();
    for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
      const text = await readOrNull(f);
      if (text) for (const i of listeningInodes(text, port)) inodes.add(i);
    }
    if (inodes.size === 0) return [];
    const pids: number[] = [];
    const entries = await readdir('/proc').catch(() => [] as string[]);
    for (const name of entries) {
      if (!/^\d+$/.test(name)) continue;
      const fds = await readdir(`/proc/${name}/fd`).catch(() => [] as string[]);
      for (const fd of fds) {
        const target = await readlink(`/proc/${name}/fd/${fd}`).catch(() => '');
        const inode = socketInode(target);
        if (inode !== null && inodes.has(inode)) {
          pids.push(Number(name));
          break;
        }
      }
    }
    return pids.sort((a, b) => a - b);
  }

  async environValue(pid: number, name: string): Promise<EnvironRead> {
    if (!Number.isInteger(pid) || pid <= 0) return { kind: 'unreadable' };
    return environEntry(await readOrNull(`/proc/${pid}/environ`), name);
  }

  async processInfo(pid: number): Promise<ProcessInfo | null> {
    const stat = await readOrNull(`/proc/${pid}/stat`);
    if (stat === null) return null;
    const [cmdline, environ, bootText, clkTck] = await Promise.all([
      readOrNull(`/proc/${pid}/cmdline`),
      readOrNull(`/proc/${pid}/environ`),
      readOrNull('/proc/stat'),
      clockTicksPerS(),
    ]);
    return processInfoFromProc(pid, { stat, cmdline, environ, bootText, clockTicksPerS: clkTck });
  }
}
