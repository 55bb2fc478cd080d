// Before a launch: is the config's port already held (a leftover server from an earlier crash, or a
// foreign process)? Reports the PIDs; with --kill-leftovers ends them (TERM, then KILL) and re-checks.

import type { ProcessHost } from '../hosts/host.js';
import { type PortHolder, portHolders, processGroupMembers, signalPids, sleep } from './process-table.js';

export interface LeftoverCheck {
  /** True when the port is free (possibly after killing leftovers). */
  free: boolean;
  holders: PortHolder[];
  killed: number[];
  /** One sentence for the user. */
  message: string | null;
}

export async function checkLeftovers(
  host: ProcessHost,
  port: number,
  opts: { kill: boolean; graceMs?: number; knownPids?: readonly number[] },
): Promise<LeftoverCheck> {
  const holders = await portHolders(host, port);
  if (holders.length === 0) return { free: true, holders, killed: [], message: null };
  const known = new Set(opts.knownPids ?? []);
  const list = holders
    .map(
      (h) => `PID ${h.pid}${known.has(h.pid) ? ' (launched by an earlier benchgate run)' : ''} (${h.argv})`,
    )
    .join('; ');
  if (!opts.kill) {
    return {
      free: false,
      holders,
      killed: [],
      message: `port ${port} on ${host.description} is already held by ${list}; stop it or re-run with --kill-leftovers.`,
    };
  }
  const pids = holders.map((h) => h.pid);
  await signalPids(host, pids, 'TERM');
  const deadline = Date.now() + (opts.graceMs ?? 5000);
  while (Date.now() < deadline && (await host.listeningPids(port)).length > 0) await sleep(100);
  const still = await host.listeningPids(port);
  if (still.length > 0) {
    await signalPids(host, still, 'KILL');
    for (let i = 0; i < 30 && (await host.listeningPids(port)).length > 0; i++) await sleep(100);
  }
  const after = await host.listeningPids(port);
  return {
    free: after.length === 0,
    holders,
    killed: pids,
    message:
      after.length === 0
        ? `port ${port} was held by ${list}; ended with --kill-leftovers.`
        : `port ${port} is still held by PID ${after.join(', ')} after SIGKILL; cannot launch.`,
  };
}

/**
 * Processes still alive in the process group of this config's previous launch (half-initialised workers
 * of a crashed or killed run), whether or not they hold the port. With `kill`, they are ended.
 */
export async function checkPreviousGroup(
  host: ProcessHost,
  previousPid: number | null,
  opts: { kill: boolean },
): Promise<{ pids: number[]; killed: boolean; message: string | null }> {
  if (!previousPid) return { pids: [], killed: false, message: null };
  const members = await processGroupMembers(host, previousPid);
  if (members.length === 0) return { pids: [], killed: false, message: null };
  const pids = members.map((m) => m.pid);
  const list = members.map((m) => `PID ${m.pid} (${m.args.slice(0, 120)})`).join('; ');
  if (!opts.kill) {
    return {
      pids,
      killed: false,
      message: `process(es) of the previous launch are still running: ${list}; re-run with --kill-leftovers to end them.`,
    };
  }
  await signalPids(host, pids, 'TERM');
  for (let i = 0; i < 30 && (await processGroupMembers(host, previousPid)).length > 0; i++) await sleep(100);
  const still = (await processGroupMembers(host, previousPid)).map((m) => m.pid);
  if (still.length > 0) await signalPids(host, still, 'KILL');
  return {
    pids,
    killed: true,
    message: `ended leftover process(es) of the previous launch with --kill-leftovers: ${list}.`,
  };
}
