// Reads the host's process table (via `ps`, run by the host) to find what is left of a launched
// server: every process still in its process group, and who holds its port.

import type { ProcessHost } from '../hosts/host.js';

export interface PsRow {
  pid: number;
  pgid: number;
  stat: string;
  args: string;
}

export function parsePs(text: string): PsRow[] {
  const rows: PsRow[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s?(.*)$/.exec(line);
    if (m) rows.push({ pid: Number(m[1]), pgid: Number(m[2]), stat: m[3], args: m[4] });
  }
  return rows;
}

/** Processes whose process group is `pgid` (a server launched by the matrix leads its own group). */
export async function processGroupMembers(host: ProcessHost, pgid: number): Promise<PsRow[]> {
  const r = await host.exec(['ps', '-eo', 'pid=,pgid=,stat=,args='], { timeoutMs: 10_000 });
  if (r.code !== 0) return [];
  return parsePs(r.stdout).filter((row) => row.pgid === pgid && !row.stat.startsWith('Z'));
}

export interface PortHolder {
  pid: number;
  argv: string;
}

/** Who listens on `port` on the host, with their command lines (for messages). */
export async function portHolders(host: ProcessHost, port: number): Promise<PortHolder[]> {
  const pids = await host.listeningPids(port);
  const out: PortHolder[] = [];
  for (const pid of pids) {
    const info = await host.processInfo(pid);
    out.push({ pid, argv: info ? info.argv.join(' ').slice(0, 200) : '(command line unreadable)' });
  }
  return out;
}

/** Sends `signal` to single PIDs through the host (used for leftovers, which are not our children). */
export async function signalPids(
  host: ProcessHost,
  pids: readonly number[],
  signal: 'TERM' | 'KILL',
): Promise<void> {
  if (pids.length === 0) return;
  await host.exec(['kill', `-${signal}`, ...pids.map(String)], { timeoutMs: 10_000 });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
