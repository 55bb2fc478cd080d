// The clean-up stages, run whatever happened before them: the server torn down the way the plan says
// (escalating to SIGKILL on its process group, then verified: port free, nothing of the group left),
// then its GPUs checked for release. Re-entered on --resume after a kill during clean-up, they finish
// the job on the launch the state recorded: its surviving processes (proven by PID, start time and launch token)
// are ended, the port checked, the GPUs checked for release.

import { isBenchgateError } from '../core/errors.js';
import type { ProcessHost } from '../hosts/host.js';
import type { ConfigRun } from './config-run.js';
import { checkGpuRelease } from './gpu-release.js';
import { untrackLaunched } from './launched-servers.js';
import { checkPreviousGroup } from './leftovers.js';
import { recordedLaunch } from './stage-launch.js';
import { tearDown } from './teardown.js';

/**
 * After Ctrl-C or SIGTERM the user is waiting: the server gets at most this long to exit on its stop
 * signal before SIGKILL (a frozen server would otherwise hold the stop for the plan's whole grace).
 */
export const INTERRUPTED_GRACE_S = 1;

/** True when there is a server to clean up after: launched by this run, or, in a clean-up re-entry, recorded by the run a kill cut short. */
export const launchedSomething = (r: ConfigRun): boolean =>
  r.server !== null || (r.finishingCleanup && recordedLaunch(r) !== null);

/** The config's host, opened now when the stages that open it did not run (a clean-up re-entry). */
async function hostFor(r: ConfigRun): Promise<ProcessHost | null> {
  r.host ??= await r.m.openHostFn(r.config.hostSpec).catch(() => null);
  return r.host;
}

/** Tears the launched server down; warnings say what did not go cleanly. */
export async function tearDownServer(r: ConfigRun): Promise<void> {
  const { config, m } = r;
  const host = await hostFor(r);
  if (!host) return;
  if (!r.server) return finishRecordedTeardown(r, host);
  const graceS = m.signal.aborted ? Math.min(config.stop.graceS, INTERRUPTED_GRACE_S) : config.stop.graceS;
  const td = await tearDown(host, r.server.proc, {
    port: config.port,
    signal: config.stop.signal,
    command: config.stop.command,
    graceS,
  }).catch((e: Error) => ({
    clean: false,
    message: `tear-down failed: ${e.message}`,
    escalatedToKill: false,
  }));
  untrackLaunched(r.server.proc);
  if (td.escalatedToKill)
    r.warnings.push(
      `the server did not stop within ${graceS} s of ${config.stop.signal}${graceS < config.stop.graceS ? ' (shortened by the interrupt)' : ''}; SIGKILL sent to its process group.`,
    );
  if (!td.clean && td.message) r.warnings.push(td.message);
  for (const w of r.warnings) m.log(`  ! ${w}`);
  if (td.clean) m.log('  torn down: port free, no process of the server left.');
}

/** Re-entered after a kill during clean-up: ends what is left of the recorded launch, checks the port. */
async function finishRecordedTeardown(r: ConfigRun, host: ProcessHost): Promise<void> {
  const { config, m } = r;
  const group = await checkPreviousGroup(host, recordedLaunch(r), { kill: true });
  if (group.message) m.log(`  ${group.message.replace('with --kill-leftovers', 'to finish its tear-down')}`);
  if (group.pids.length > 0 && !group.killed) r.warnings.push(group.message ?? '');
  const held = await host.listeningPids(config.port).catch(() => [] as number[]);
  if (held.length > 0) r.warnings.push(`port ${config.port} is still held by PID ${held.join(', ')}.`);
  for (const w of r.warnings) m.log(`  ! ${w}`);
  if (group.killed || (group.pids.length === 0 && held.length === 0))
    m.log('  torn down: port free, no process of the earlier launch left.');
}

/** After the tear-down: did the server's processes release their GPUs? */
export async function checkGpusReleased(r: ConfigRun): Promise<void> {
  const host = await hostFor(r);
  if (!host) return;
  const leader = r.server?.proc.pid ?? recordedLaunch(r)?.pid;
  const gpu = await checkGpuRelease(host, {
    serverPids: [...(leader === undefined ? [] : [leader]), ...r.serverPids],
    maxMemoryUsedMiB: r.m.plan.gpus?.max_memory_used_mib,
    timeoutS: 15,
  }).catch((e: unknown) => ({
    checked: false,
    message: `GPU release not checked: ${isBenchgateError(e) ? e.message : (e as Error).message}`,
  }));
  if (gpu.message) {
    r.warnings.push(gpu.message);
    r.m.log(`  ! ${gpu.message}`);
  }
}
