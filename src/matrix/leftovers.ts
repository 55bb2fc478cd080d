// Before a launch: is the config's port already held (a leftover server from an earlier crash, or a
// foreign process)? Reports the PIDs with their command lines. With --kill-leftovers it ends only what
// benchgate itself launched, proven by what a forged state cannot fake: the launch's token in the
// process's environment (launch-proof.ts), besides the recorded PID and start time (or membership of
// that launch's process group, started after it); or what the user named by PID. Any other process is
// never signalled, only reported with why it is not proven.

import { monoNowMs } from '../core/clock.js';
import type { ProcessHost } from '../hosts/host.js';
import { type PsRow, readProcessTable } from '../hosts/process-table.js';
import { tokenProblem } from './launch-proof.js';
import { type PortHolder, portHolders, processGroupMembers, signalPids, sleep } from './process-table.js';
import type { ConfigState } from './state.js';

/** A server benchgate launched, as the matrix state records it. */
export interface RecordedLaunch {
  pid: number;
  /** Process start time (ISO) read right after the launch; null for state files written before it was kept. */
  startTime: string | null;
  /** Keyed digest of the launch's token; null for state files written before it was kept (nothing is proven). */
  proof: string | null;
}

/** The launch a config's state records, if any. */
export function launchRecordedIn(st: ConfigState): RecordedLaunch | null {
  return st.lastPid
    ? { pid: st.lastPid, startTime: st.lastStartTime ?? null, proof: st.lastLaunchProof ?? null }
    : null;
}

/**
 * Why process `p` is not proven to be of one of `launches`, or null when it is: by PID and start time
 * (or group and a later start, belongsToLaunch) and then by the launch token in its environment.
 */
export async function launchProblem(
  host: ProcessHost,
  p: { pid: number; pgid: number | null },
  launches: readonly RecordedLaunch[],
): Promise<string | null> {
  const startTime = (await host.processInfo(p.pid).catch(() => null))?.startTime ?? null;
  const launch = launches.find((l) => belongsToLaunch({ ...p, startTime }, [l]));
  if (!launch) {
    const recorded = launches.find((l) => l.pid === p.pid || l.pid === p.pgid);
    if (recorded?.startTime === null) return 'no start time was recorded for its launch';
    return recorded
      ? "its start time is not the recorded launch's (the PID was reused)"
      : 'benchgate did not launch it';
  }
  return tokenProblem(host, p.pid, launch.proof);
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
  launches: readonly Pick<RecordedLaunch, 'pid' | 'startTime'>[],
): boolean {
  if (p.startTime === null) return false;
  return launches.some((l) => {
    if (l.startTime === null) return false;
    if (p.pid === l.pid) return p.startTime === l.startTime;
    return p.pgid === l.pid && Date.parse(p.startTime as string) >= Date.parse(l.startTime);
  });
}

/** The holders benchgate may end (its proven launches, the PIDs the user named), and why each other one is not. */
async function killable(
  host: ProcessHost,
  holders: PortHolder[],
  opts: LeftoverOptions,
): Promise<{ ours: number[]; why: Map<number, string> }> {
  const named = new Set(opts.userPids ?? []);
  const rows = (await readProcessTable(host, 10_000).catch(() => null)) ?? [];
  const ours: number[] = [];
  const why = new Map<number, string>();
  for (const h of holders) {
    const pgid = rows.find((r) => r.pid === h.pid)?.pgid ?? null;
    const problem = named.has(h.pid)
      ? null
      : await launchProblem(host, { pid: h.pid, pgid }, opts.launched ?? []);
    if (problem === null) ours.push(h.pid);
    else why.set(h.pid, problem);
  }
  return { ours, why };
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
  const { ours, why } = await killable(host, holders, { ...opts, userPids: opts.kill ? opts.userPids : [] });
  const describe = (h: PortHolder) =>
    `PID ${h.pid}${ours.includes(h.pid) ? ' (launched by an earlier benchgate run)' : ''} (${h.argv})`;
  const describeWhy = (h: PortHolder) => `${describe(h)}: ${why.get(h.pid) ?? 'not proven'}`;
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
        `port ${port} on ${host.description} is held by ${foreign.map(describeWhy).join('; ')}, which benchgate did not launch; ` +
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

/** The members of a launch's process group that are provably that launch's (launchProblem), and the others with why. */
export async function provenMembers(
  host: ProcessHost,
  members: readonly PsRow[],
  launch: RecordedLaunch,
): Promise<{ ours: PsRow[]; unproven: { row: PsRow; why: string }[] }> {
  const ours: PsRow[] = [];
  const unproven: { row: PsRow; why: string }[] = [];
  for (const m of members) {
    const why = await launchProblem(host, m, [launch]);
    if (why === null) ours.push(m);
    else unproven.push({ row: m, why });
  }
  return { ours, unproven };
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
  const proven = await provenMembers(host, members, previous);
  const ours = proven.ours.map((m) => m.pid);
  if (proven.unproven.length > 0) {
    const reasons = proven.unproven.map((u) => `PID ${u.row.pid}: ${u.why}`).join('; ');
    return {
      pids,
      killed: false,
      message: `process group ${previous.pid} holds ${list}, which benchgate cannot prove it launched (${reasons}); not ended.`,
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
