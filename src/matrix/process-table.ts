// What is left of a launched server, read through the host: every process still in its process group,
// and who holds its port; plus signalling leftovers.

import type { ProcessHost } from '../hosts/host.js';
import { type PsRow, readProcessTable } from '../hosts/process-table.js';

/** Processes whose process group is `pgid` (a server launched by the matrix leads its own group). */
export async function processGroupMembers(host: ProcessHost, pgid: number): Promise<PsRow[]> {
  const rows = await readProcessTable(host, 10_000);
  return (rows ?? []).filter((row) => row.pgid === pgid && !row.stat.startsWith('Z'));
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

/** Kept under its old name for the matrix modules; one implementation in core/clock.ts. */
export { sleepMs as sleep } from '../core/clock.js';
