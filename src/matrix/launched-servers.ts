// The servers this process launched and has not torn down yet. A second Ctrl-C makes the CLI quit at
// once, without the orderly tear-down; before it exits it ends these process groups (SIGKILL), so no
// launched server outlives benchgate (a plain kill -9 of benchgate still can: --resume reports it).

import type { SpawnedProcess } from '../hosts/host.js';

const launched = new Set<SpawnedProcess>();

/** Remembers a launched server until `untrackLaunched` (its tear-down). */
export function trackLaunched(proc: SpawnedProcess): void {
  launched.add(proc);
}

export function untrackLaunched(proc: SpawnedProcess): void {
  launched.delete(proc);
}

/** Sends SIGKILL to the process group of every server still tracked; waits at most `timeoutMs`. */
export async function killLaunchedServers(timeoutMs = 5000): Promise<number> {
  const procs = [...launched];
  launched.clear();
  const kills = Promise.all(procs.map((p) => p.kill('SIGKILL').catch(() => undefined)));
  await Promise.race([kills, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  return procs.length;
}
