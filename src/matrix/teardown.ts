// Stops a launched server the way the plan says (signal or stop command), escalates to SIGKILL on the
// whole process group after the grace period, then verifies: the port is free and no process of the group remains.

import type { ProcessHost, SpawnedProcess } from '../hosts/host.js';
import { processGroupMembers, sleep } from './process-table.js';

export interface TeardownResult {
  /** True when the port is free and nothing of the process group remains. */
  clean: boolean;
  escalatedToKill: boolean;
  exit: { code: number | null; signal: string | null } | null;
  remainingPids: number[];
  portHeldBy: number[];
  message: string | null;
}

export async function tearDown(
  host: ProcessHost,
  proc: SpawnedProcess,
  opts: { port: number; signal: 'SIGTERM' | 'SIGINT' | 'SIGKILL'; command?: string; graceS: number },
): Promise<TeardownResult> {
  let exit: TeardownResult['exit'] = null;
  const exited = proc.exited.then((e) => {
    exit = e;
    return e;
  });
  const alreadyDead = await Promise.race([exited.then(() => true), sleep(0).then(() => false)]);
  let escalated = false;
  if (!alreadyDead) {
    if (opts.command) {
      // Like launch commands, a stop command is split on whitespace and run without a shell.
      const argv = opts.command.trim().split(/\s+/);
      await host.exec(argv, { timeoutMs: opts.graceS * 1000 }).catch(() => undefined);
    } else {
      await proc.kill(opts.signal);
    }
    const graceOver = sleep(opts.graceS * 1000).then(() => false);
    const ended = await Promise.race([exited.then(() => true), graceOver]);
    if (!ended) {
      escalated = true;
      await proc.kill('SIGKILL');
      await Promise.race([exited, sleep(5000)]);
    }
  }
  // Children that ignored the group signal, or that re-grouped, still hold the group id: end them too.
  let remaining = await processGroupMembers(host, proc.pid);
  if (remaining.length > 0) {
    escalated = true;
    await proc.kill('SIGKILL');
    for (let i = 0; i < 30 && remaining.length > 0; i++) {
      await sleep(100);
      remaining = await processGroupMembers(host, proc.pid);
    }
  }
  let portHeldBy = await host.listeningPids(opts.port);
  for (let i = 0; i < 20 && portHeldBy.length > 0; i++) {
    await sleep(100);
    portHeldBy = await host.listeningPids(opts.port);
  }
  const remainingPids = remaining.map((r) => r.pid);
  const problems: string[] = [];
  if (remainingPids.length > 0)
    problems.push(`process(es) ${remainingPids.join(', ')} of the server survived SIGKILL`);
  if (portHeldBy.length > 0) problems.push(`port ${opts.port} is still held by PID ${portHeldBy.join(', ')}`);
  return {
    clean: problems.length === 0,
    escalatedToKill: escalated,
    exit,
    remainingPids,
    portHeldBy,
    message: problems.length ? `tear-down incomplete: ${problems.join('; ')}.` : null,
  };
}
