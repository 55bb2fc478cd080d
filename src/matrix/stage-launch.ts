// The stages that bring a config's server up to the point where it can answer: room for its results
// on disk, its port cleared (leftovers of earlier runs reported, ended with --kill-leftovers when they
// are provably benchgate's), the launch with its output captured, and the wait until /health answers.

import { join } from 'node:path';
import { isBenchgateError } from '../core/errors.js';
import { redactArgv } from '../hosts/redact-env.js';
import { checkFreeSpace, estimateRunBytes } from '../results/free-space.js';
import { type ConfigRun, codeOf, fail } from './config-run.js';
import { launchServer, SERVER_OUTPUT_FILE } from './launch.js';
import { trackLaunched } from './launched-servers.js';
import { checkLeftovers, checkPreviousGroup, launchRecordedIn, type RecordedLaunch } from './leftovers.js';
import { processGroupMembers } from './process-table.js';
import { notReadyFailure } from './ready-failure.js';
import { waitForReady } from './wait-ready.js';

/** The launch the state recorded for this config, if any. */
export function recordedLaunch(r: ConfigRun): RecordedLaunch | null {
  return launchRecordedIn(r.st);
}

/** A value an earlier stage of the table provides (a missing one is a bug in the table's order). */
export function need<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`the matrix reached a stage that needs ${what} before it was set`);
  return value;
}

/** Room for this config's results: a full disk fails the config before anything is launched. */
export async function makeRoom(r: ConfigRun): Promise<void> {
  try {
    checkFreeSpace(r.dir, estimateRunBytes(r.config.plan));
  } catch (e) {
    fail('launch', 'BG_E_DISK', `config "${r.config.name}": ${(e as Error).message}`);
  }
}

/** Opens the config's host, then checks its port and the previous launch's process group. */
export async function clearPort(r: ConfigRun): Promise<void> {
  const { config, m } = r;
  try {
    r.host = await m.openHostFn(config.hostSpec);
  } catch (e) {
    fail('launch', codeOf(e, 'BG_E_HOST'), isBenchgateError(e) ? e.message : String(e));
  }
  const host = r.host;
  const recorded = recordedLaunch(r);
  let leftovers: Awaited<ReturnType<typeof checkLeftovers>>;
  try {
    leftovers = await checkLeftovers(host, config.port, {
      kill: m.killLeftovers,
      userPids: m.killLeftoverPids,
      launched: recorded ? [recorded] : [],
    });
  } catch (e) {
    fail(
      'leftovers',
      codeOf(e, 'BG_E_HOST'),
      `config "${config.name}": could not inspect port ${config.port} on ${host.description}: ${(e as Error).message}`,
    );
  }
  if (leftovers.message) m.log(`  ${leftovers.message}`);
  const group = await checkPreviousGroup(host, recorded, { kill: m.killLeftovers });
  if (group.message) m.log(`  ${group.message}`);
  if (group.pids.length > 0 && !group.killed) r.warnings.push(group.message ?? '');
  if (!leftovers.free) {
    fail(
      'leftovers',
      'BG_E_LAUNCH',
      leftovers.message ?? `port ${config.port} is busy.`,
      leftovers.holders.map((h) => `PID ${h.pid}: ${h.argv}`),
    );
  }
}

/** Starts the server; its PID and start time are saved at once, so a later run can prove it is ours. */
export async function launch(r: ConfigRun): Promise<void> {
  const { config, m } = r;
  const host = need(r.host, 'a host');
  m.log(`  launching: ${redactArgv(config.argv).join(' ')} (output → ${join(r.dir, SERVER_OUTPUT_FILE)})`);
  try {
    r.server = await launchServer(host, config, r.dir);
  } catch (e) {
    fail('launch', codeOf(e, 'BG_E_LAUNCH'), (e as Error).message);
  }
  trackLaunched(r.server.proc);
  r.st.lastPid = r.server.proc.pid;
  r.st.lastStartTime = r.server.startTime;
  r.st.lastLaunchProof = r.server.proof;
  await m.save();
}

/** Waits until /health answers 200; an exit, a crash line, flapping or the time limit fail the config. */
export async function waitReady(r: ConfigRun): Promise<void> {
  const { config, m } = r;
  const server = need(r.server, 'a launched server');
  const ready = await waitForReady({
    url: config.url,
    timeoutS: config.readyTimeoutS,
    exited: server.proc.exited,
    log: server.log,
    signal: m.signal,
    onProgress: (l) => m.progress(`  ${config.name}: waiting for ready ${l}`),
  });
  m.progress('');
  if (ready.kind !== 'ready') {
    const f = notReadyFailure(ready, config, server.log.excerpt(12));
    fail('ready', f.code, f.message, f.evidence);
  }
  m.log(`  ready after ${ready.elapsedS.toFixed(1)} s`);
  r.st.measured = { ...r.st.measured, readyS: ready.elapsedS };
  r.serverPids = (await processGroupMembers(need(r.host, 'a host'), server.proc.pid)).map((p) => p.pid);
}
