// On --resume, before any config runs: servers the earlier run launched and a kill left running (a
// SIGKILL of benchgate, a lost SSH session) would hold their GPUs and ports while the other configs are
// measured, and a config's own leftovers check would only find them at its turn, perhaps hours later.
// So every config's recorded launch is looked for first: with --kill-leftovers its processes (proven
// ours by PID and start time) are ended; without it the resume stops before launching anything,
// naming them. A config cut off during its clean-up had already decided to end them: they are ended
// with or without the flag, finishing that tear-down. Only processes proven to be the recorded launch
// (its token in their environment, leftovers.ts launchProblem) count: the others are never signalled,
// the log names them with why, and each config's own check reports them again at its turn.

import { BenchgateError } from '../core/errors.js';
import type { ProcessHost } from '../hosts/host.js';
import type { ResolvedConfig } from './config-plan.js';
import type { MatrixContext } from './config-run.js';
import { CONFIG_STAGES } from './config-stages.js';
import { checkPreviousGroup, launchRecordedIn, provenMembers, type RecordedLaunch } from './leftovers.js';
import { processGroupMembers } from './process-table.js';

/** The clean-up stages (tear down, GPU release, assemble): a config cut off in one was ending its server. */
const CLEANUP = new Set(CONFIG_STAGES.filter((s) => s.always).map((s) => s.name));

interface Survivors {
  config: string;
  launch: RecordedLaunch;
  /** The host the launch ran on, open until the resume has dealt with it. */
  host: ProcessHost;
  /** Cut off during its clean-up: its tear-down ends them, flag or not. */
  tearingDown: boolean;
  /** "PID n (argv)" of each live process of the launch. */
  processes: string[];
}

/** The live processes of a config's recorded launch that are provably that launch's, on its open host. */
async function survivorsOf(m: MatrixContext, config: ResolvedConfig): Promise<Survivors | null> {
  const st = m.state.configs[config.name];
  if (!st?.lastPid) return null;
  const launch = launchRecordedIn(st) as RecordedLaunch;
  // the host cannot be reached now: the config's own stages say so at its turn
  const host = await m.openHostFn(config.hostSpec).catch(() => null);
  if (!host) return null;
  const members = await processGroupMembers(host, launch.pid).catch(() => []);
  const { ours, unproven } = await provenMembers(host, members, launch);
  for (const u of unproven)
    m.log(
      `  ${config.name}: PID ${u.row.pid} (${u.row.args.slice(0, 120)}) is in the recorded launch's process group, but benchgate cannot prove it launched it (${u.why}); not signalled.`,
    );
  if (ours.length === 0) {
    await host.close().catch(() => undefined);
    return null;
  }
  const tearingDown = st.stage !== null && st.stage !== undefined && CLEANUP.has(st.stage);
  const processes = ours.map((p) => `PID ${p.pid} (${p.args.slice(0, 120)})`);
  return { config: config.name, launch, host, tearingDown, processes };
}

/** Ends (with --kill-leftovers) or refuses to run beside the servers the earlier run left running. */
export async function settleEarlierLaunches(
  m: MatrixContext,
  configs: readonly ResolvedConfig[],
): Promise<void> {
  const found: Survivors[] = [];
  try {
    for (const c of configs) {
      const s = await survivorsOf(m, c);
      if (s) found.push(s);
    }
    const kept = found.filter((s) => !s.tearingDown);
    if (kept.length > 0 && !m.killLeftovers) {
      const list = kept.map((s) => `${s.config}: ${s.processes.join('; ')}`).join('; ');
      throw new BenchgateError(
        'BG_E_LAUNCH',
        `the earlier run's server(s) are still running, launched by benchgate for ${list}; resuming beside them would measure every config with their GPUs and ports taken. End them, or resume with --kill-leftovers.`,
      );
    }
    for (const s of found) {
      const ended = await checkPreviousGroup(s.host, s.launch, { kill: true });
      const why = s.tearingDown ? 'to finish its tear-down' : 'with --kill-leftovers';
      const text =
        ended.message?.replace('with --kill-leftovers', why) ?? 'nothing of its earlier launch was left';
      m.log(`  ${s.config}: before resuming, ${text}`);
    }
  } finally {
    await Promise.all(found.map((s) => s.host.close().catch(() => undefined)));
  }
}
