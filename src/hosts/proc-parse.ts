// Pure parsers for the /proc files both hosts read (locally via fs, remotely via ssh + cat):
// /proc/<pid>/stat, /proc/stat (btime), NUL-separated cmdline/environ, /proc/net/tcp{,6}.

import type { EnvironRead, ProcessInfo } from './host.js';
import { redactArgv, redactEnv } from './redact-env.js';

export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  /** Field 22: start time in clock ticks after boot. */
  startTicks: number;
}

/** Parses /proc/<pid>/stat; the command name (field 2) may contain spaces and parentheses. */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state); field N is rest[N - 3]
  const state = rest[0];
  const ppid = Number(rest[1]);
  const startTicks = Number(rest[19]);
  if (!state || !Number.isFinite(pid) || !Number.isFinite(ppid) || !Number.isFinite(startTicks)) return null;
  return { pid, state, ppid, startTicks };
}

/** Boot time (epoch seconds) from /proc/stat's `btime` line. */
export function parseBootTimeS(procStatText: string): number | null {
  const m = /^btime\s+(\d+)/m.exec(procStatText);
  return m ? Number(m[1]) : null;
}

/** Start time as ISO from start ticks, boot time and CLK_TCK. */
export function startTimeIso(startTicks: number, bootTimeS: number, clkTck: number): string {
  return new Date(Math.round((bootTimeS + startTicks / clkTck) * 1000)).toISOString();
}

export function parseNulList(text: string): string[] {
  const parts = text.split('\0');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** One variable of a /proc/<pid>/environ text (null: unreadable), unredacted. */
export function environEntry(text: string | null, name: string): EnvironRead {
  if (text === null) return { kind: 'unreadable' };
  const prefix = `${name}=`;
  const entry = parseNulList(text).find((e) => e.startsWith(prefix));
  return entry === undefined ? { kind: 'absent' } : { kind: 'value', value: entry.slice(prefix.length) };
}

/** Parses /proc/<pid>/environ into a map with secret-looking values redacted. */
export function parseEnviron(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of parseNulList(text)) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return redactEnv(env);
}

/** Socket inodes in LISTEN state (st 0A) on a local port, from /proc/net/tcp or tcp6 text. */
export function listeningInodes(procNetTcpText: string, port: number): number[] {
  const inodes: number[] = [];
  for (const line of procNetTcpText.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10) continue;
    const local = cols[1];
    const st = cols[3];
    const portHex = local.slice(local.lastIndexOf(':') + 1);
    if (st === '0A' && Number.parseInt(portHex, 16) === port) {
      const inode = Number(cols[9]);
      if (inode > 0) inodes.push(inode);
    }
  }
  return inodes;
}

/** Socket inode from a /proc/<pid>/fd/<n> link target such as `socket:[12345]`. */
export function socketInode(linkTarget: string): number | null {
  const m = /^socket:\[(\d+)\]$/.exec(linkTarget.trim());
  return m ? Number(m[1]) : null;
}

/** The /proc texts of one process, however the host read them (null: could not be read). */
export interface ProcTexts {
  stat: string;
  cmdline: string | null;
  environ: string | null;
  /** Text holding /proc/stat's `btime` line. */
  bootText: string | null;
  clockTicksPerS: number;
}

/** A ProcessInfo from /proc texts, argv and environment redacted; null when the stat text is not one. */
export function processInfoFromProc(pid: number, texts: ProcTexts): ProcessInfo | null {
  const stat = parseProcStat(texts.stat);
  if (!stat) return null;
  const bootS = texts.bootText === null ? null : parseBootTimeS(texts.bootText);
  return {
    pid,
    ppid: stat.ppid,
    state: stat.state,
    startTime: bootS === null ? null : startTimeIso(stat.startTicks, bootS, texts.clockTicksPerS),
    argv: texts.cmdline ? redactArgv(parseNulList(texts.cmdline)) : [],
    env: texts.environ === null ? null : parseEnviron(texts.environ),
  };
}
