// Before a launch: is the config's port already held (a leftover server from an earlier crash, or a
// foreign process)? Reports the PIDs with their command lines. With --kill-leftovers it ends only what
// benchgate itself launched (same PID *and* same process start time as recorded in the matrix state, or
// a member of that launch's process group started after it) or what the user named by PID; any other
// process is never signalled, only reported.

import { monoNowMs } from '../core/clock.js';
import type { ProcessHost } from '../hosts/host.js';
import { type PsRow, readProcessTable } from '../hosts/process-table.js';
import { type PortHolder, portHolders, processGroupMembers, signalPids, sleep } from './process-table.js';

/** A server benchgate launched, as the matrix state records it. */
export interface RecordedLaunch {
  pid: number;
  /** Process start time (ISO) read right after the launch; null for state files written before it was kept. */
  startTime: string | null;
}

export interface LeftoverCheck {
  /** True when the port is free (possibly after killing leftovers). */
  free: boolean;
  holders: PortHolder[];
  killed: number[];
  /** One sentence for the user. */
  message: string | null;
}

export interface LeftoverOptions {
  kill: boolean;
  graceMs?: number;
  /** Servers benchgate launched earlier (from the matrix state). */
  launched?: readonly RecordedLaunch[];
  /** PIDs the user named (e.g. `--kill-leftovers 1234,5678`): ended whatever they are. */
  userPids?: readonly number[];
}

/**
 * Is `pid` (started at `startTime`, in process group `pgid`) a process of a recorded launch? The leader
 * must carry the recorded start time (a reused PID does not); a group member must have started at or
 * after it. Without a recorded start time nothing can be proven, so nothing is ours.
 */
export function belongsToLaunch(
  p: { pid: number; pgid: number | null; startTime: string | null },
  launches: readonly RecordedLaunch[],
): boolean {
  if (p.startTime === null) return false;
  return launches.some((l) => {
    if (l.startTime === null) return false;
    if (p.pid === l.pid) return p.startTime === l.startTime;
    return p.pgid === l.pid && Date.parse(p.startTime as string) >= Date.parse(l.startTime);
  });
}

/** The holders benchgate may end: its own launches and the PIDs the user named. */
async function killable(host: ProcessHost, holders: PortHolder[], opts: LeftoverOptions): Promise<number[]> {
  const named = new Set(opts.userPids ?? []);
  const rows = (await readProcessTable(host, 10_000).catch(() => null)) ?? [];
  const out: number[] = [];
  for (const h of holders) {
    if (named.has(h.pid)) {
      out.push(h.pid);
      continue;
    }
    const info = await host.processInfo(h.pid).catch(() => null);
    const pgid = rows.find((r) => r.pid === h.pid)?.pgid ?? null;
    if (belongsToLaunch({ pid: h.pid, pgid, startTime: info?.startTime ?? null }, opts.launched ?? []))
      out.push(h.pid);
  }
  return out;
}

async function waitPortFree(host: ProcessHost, port: number, ms: number): Promise<number[]> {
  const deadline = monoNowMs() + ms;
  let held = await host.listeningPids(port);
  while (held.length > 0 && monoNowMs() < deadline) {
    await sleep(100);
    held = await host.listeningPids(port);
  }
  return held;
}

export async function checkLeftovers(
  host: ProcessHost,
  port: number,
  opts: LeftoverOptions,
): Promise<LeftoverCheck> {
  const holders = await portHolders(host, port);
  if (holders.length === 0) return { free: true, holders, killed: [], message: null };
  const ours = await killable(host, holders, { ...opts, userPids: opts.kill ? opts.userPids : [] });
  const describe = (h: PortHolder) =>
    `PID ${h.pid}${ours.includes(h.pid) ? ' (launched by an earlier benchgate run)' : ''} (${h.argv})`;
  const list = holders.map(describe).join('; ');
  if (!opts.kill) {
    return {
      free: false,
      holders,
      killed: [],
      message: `port ${port} on ${host.description} is already held by ${list}; stop it or re-run with --kill-leftovers.`,
    };
  }
  const foreign = holders.filter((h) => !ours.includes(h.pid));
  if (foreign.length > 0) {
    // Never signal a process benchgate cannot prove it started: the user names it, or stops it.
    return {
      free: false,
      holders,
      killed: [],
      message:
        `port ${port} on ${host.description} is held by ${foreign.map(describe).join('; ')}, which benchgate did not launch; ` +
        `not ended. Stop it yourself, or name it: --kill-leftovers ${foreign.map((h) => h.pid).join(',')}.`,
    };
  }
  await signalPids(host, ours, 'TERM');
  let still = await waitPortFree(host, port, opts.graceMs ?? 5000);
  const stillOurs = still.filter((p) => ours.includes(p));
  if (stillOurs.length > 0) {
    await signalPids(host, stillOurs, 'KILL');
    still = await waitPortFree(host, port, 3000);
  }
  return {
    free: still.length === 0,
    holders,
    killed: ours,
    message:
      still.length === 0
        ? `port ${port} was held by ${list}; ended with --kill-leftovers.`
        : `port ${port} is still held by PID ${still.join(', ')} after SIGKILL; cannot launch.`,
  };
}

/** The members of a launch's process group that are provably that launch's (see belongsToLaunch). */
export async function provenMembers(
  host: ProcessHost,
  members: readonly PsRow[],
  launch: RecordedLaunch,
): Promise<PsRow[]> {
  const ours: PsRow[] = [];
  for (const m of members) {
    const info = await host.processInfo(m.pid).catch(() => null);
    if (belongsToLaunch({ pid: m.pid, pgid: m.pgid, startTime: info?.startTime ?? null }, [launch]))
      ours.push(m);
  }
  return ours;
}

/**
 * Processes still alive in the process group of this config's previous launch (half-initialised workers
 * of a crashed or killed run), whether or not they hold the port. With `kill`, only members proven to
 * belong to that launch (see belongsToLaunch) are ended; the rest are reported.
 */
export async function checkPreviousGroup(
  host: ProcessHost,
  previous: RecordedLaunch | null,
  opts: { kill: boolean },
): Promise<{ pids: number[]; killed: boolean; message: string | null }> {
  if (!previous) return { pids: [], killed: false, message: null };
  const members = await processGroupMembers(host, previous.pid);
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
  const ours = (await provenMembers(host, members, previous)).map((m) => m.pid);
  if (ours.length < members.length) {
    return {
      pids,
      killed: false,
      message:
        `process group ${previous.pid} holds ${list}, which benchgate cannot prove it launched ` +
        `(${previous.startTime === null ? 'no start time was recorded' : 'the PID was reused'}); not ended.`,
    };
  }
  const survivors = async (): Promise<number[]> =>
    (await processGroupMembers(host, previous.pid)).map((m) => m.pid).filter((p) => ours.includes(p));
  /** Polls up to `tries` × 100 ms for the group's members to be gone; returns who is left. */
  const untilGone = async (tries: number): Promise<number[]> => {
    let left = await survivors();
    for (let i = 0; i < tries && left.length > 0; i++) {
      await sleep(100);
      left = await survivors();
    }
    return left;
  };
  await signalPids(host, ours, 'TERM');
  const still = await untilGone(30);
  if (still.length > 0) {
    await signalPids(host, still, 'KILL');
    // SIGKILL is not instant on a loaded machine: report "ended" only once the processes are gone
    await untilGone(50);
  }
  return {
    pids,
    killed: true,
    message: `ended leftover process(es) of the previous launch with --kill-leftovers: ${list}.`,
  };
}
