// Test support: what every test process sees instead of the user's machine. The suite runs under one
// temporary folder of its own (TMPDIR for the test processes and every child they start), removed when
// the run ends, and each test process gets an empty home inside it, so nothing a test makes is left
// behind and nothing in the user's ~/.cache or ~/.config (a saved calibration) changes an outcome.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Name prefix of a run's temporary folder (kept short: ssh control sockets live a few levels below). */
export const RUN_ROOT_PREFIX = 'bg-suite-';
const OWNER_FILE = 'owner.pid';

/**
 * The suite's own settings: runs the CLI makes in tests are not added to a results store, so a test that
 * lists a results folder sees only runs (the store's tests turn it back on, cli/test-support/bench-sim.ts).
 */
export const SUITE_SETTINGS: Readonly<Record<string, string>> = { BENCHGATE_STORE: 'off' };

/** Drops what changes what benchgate does (the shell's BENCHGATE_* settings, a Kubernetes shard index), then sets the suite's own. */
export function useSuiteSettings(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(env))
    if (name.startsWith('BENCHGATE_') || name === 'JOB_COMPLETION_INDEX') delete env[name];
  Object.assign(env, SUITE_SETTINGS);
}

/** A fresh folder under `parentTmp` for one run, owned by this process; TMPDIR points there from now on. */
export function createRunRoot(parentTmp: string, env: NodeJS.ProcessEnv): string {
  const root = mkdtempSync(join(parentTmp, RUN_ROOT_PREFIX));
  writeFileSync(join(root, OWNER_FILE), String(process.pid));
  env.TMPDIR = root;
  env.TMP = root;
  env.TEMP = root;
  return root;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the folders of earlier runs that were killed before they could clean up (their owner is gone). */
export function removeAbandonedRunRoots(parentTmp: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(parentTmp)) {
    if (!name.startsWith(RUN_ROOT_PREFIX)) continue;
    const dir = join(parentTmp, name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // not ours, or still being made
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch (e) {
      // e.g. a tmpfs still mounted there: this run goes on, and says what it could not remove
      console.warn(`benchgate tests: could not remove an earlier run's ${dir}: ${(e as Error).message}`);
    }
  }
  return removed;
}

/** An empty home for this process under the run's folder: HOME and the XDG folders point into it. */
export function isolateHome(tmp: string, env: NodeJS.ProcessEnv): string {
  const home = mkdtempSync(join(tmp, 'home-'));
  env.HOME = home;
  for (const [name, sub] of [
    ['XDG_CONFIG_HOME', '.config'],
    ['XDG_CACHE_HOME', '.cache'],
    ['XDG_DATA_HOME', '.local/share'],
    ['XDG_STATE_HOME', '.local/state'],
  ] as const) {
    env[name] = join(home, sub);
    mkdirSync(env[name] as string, { recursive: true });
  }
  return home;
}
