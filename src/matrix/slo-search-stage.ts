// load.kind slo_search in the matrix: each config's search runs through its one session (the same
// driver as `bench`, session/slo-search-run.ts), every probe as a level in its own levels/NN/ run
// directory, checked after it like any matrix level (crash, exit, drift), and the outcome written to the
// config's slo-search.json, so the assembled config run is reported and compared like a `bench` search.
// Resume rule: a completed search is kept; an interrupted one is re-run from the start for that config
// (its probes are discarded), because a search's next probe depends on every earlier one.

import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import { levelLabel } from '../records/level-key.js';
import { REQUESTS_FILE } from '../results/layout.js';
import { SLO_SEARCH_FILE } from '../results/slo-search-file.js';
import type { Session } from '../session/session.js';
import { type SloSearchRun, searchThroughSession } from '../session/slo-search-run.js';
import { LEVELS_DIR, levelRunDir } from './assemble-run.js';
import type { ConfigState } from './state.js';
import { sweepOneLevel } from './sweep-level.js';

export const isSloSearch = (plan: Plan): boolean => plan.load.kind === 'slo_search';

/** True when this config's search finished under the same launch spec (kept on resume, not relaunched). */
export function searchCompleted(prev: ConfigState | undefined, launchFingerprint: string): boolean {
  return (
    prev?.searchCompleted === true &&
    prev.status === 'completed' &&
    prev.launchFingerprint === launchFingerprint &&
    prev.completedLevels.length > 0
  );
}

/** Forgets an interrupted (or superseded) search: its probes, their assembled level files and any outcome. */
export async function discardSearch(configDir: string, st: ConfigState): Promise<number> {
  const dropped = st.completedLevels.length;
  st.completedLevels = [];
  st.searchCompleted = false;
  await rm(join(configDir, LEVELS_DIR), { recursive: true, force: true });
  await rm(join(configDir, SLO_SEARCH_FILE), { force: true });
  for (const f of await readdir(configDir).catch(() => [] as string[]))
    if (/^level-\d+\.json$/.test(f)) await rm(join(configDir, f), { force: true });
  return dropped;
}

export interface ConfigSearchArgs {
  session: Session;
  configDir: string;
  signal: AbortSignal;
  afterLevel: () => Promise<{ valid: boolean; reasons: string[] }>;
  /**
   * Runs after each probe's level is written: throws (failing the config) when it is not to be kept.
   * `tolerated`: invalidity reasons that only make the probe a failed one (its error-rate stop).
   */
  keepLevel: (
    idx: number,
    summary: LevelSummary,
    what: string,
    startedMs: number,
    tolerated: readonly string[],
  ) => Promise<void>;
  log: (line: string) => void;
  nowMs: () => number;
}

/** The config's search; throws when a probe is interrupted or fails its checks (slo-search.json is then not written). */
export async function runConfigSearch(a: ConfigSearchArgs): Promise<SloSearchRun> {
  const run = await searchThroughSession(a.session, {
    outDir: a.configDir,
    signal: a.signal,
    note: (t) => a.log(`  ${t.replace(/^benchgate: /, '')}`),
    requestsFile: (idx) => join(levelRunDir(a.configDir, idx), REQUESTS_FILE),
    runProbe: async (idx, probe) => {
      const what = `probe ${idx + 1} (${levelLabel(probe.level)})`;
      const runDir = levelRunDir(a.configDir, idx);
      await rm(runDir, { recursive: true, force: true });
      a.log(`  SLO search ${what}`);
      const startedMs = a.nowMs();
      const outcome = await sweepOneLevel(a.session, idx, runDir, a.signal, a.afterLevel, { probe });
      // a probe past the server's capacity may stop on its error rate: that is a failed probe, not a failed config
      await a.keepLevel(idx, outcome.summary, what, startedMs, outcome.stop ? [outcome.stop.message] : []);
      return outcome;
    },
  });
  if (run.interrupted)
    throw new BenchgateError('BG_E_ABORTED', 'the SLO search was interrupted before it ended.');
  return run;
}
