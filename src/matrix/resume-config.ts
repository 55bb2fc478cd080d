// What a config's earlier runs left, judged before it runs again: levels kept only under the same
// launch spec (else moved aside as superseded), level directories a kill cut short dropped, kept levels
// whose files are gone re-run (the state file alone is not trusted), an unfinished SLO search discarded,
// and the levels still to sweep. Nothing here launches anything.

import { access, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { REQUESTS_FILE } from '../results/layout.js';
import { LEVELS_DIR, levelRunDir, readLevelSummary } from './assemble-run.js';
import type { ResolvedConfig } from './config-plan.js';
import type { ConfigRun, MatrixContext } from './config-run.js';
import { discardSearch, isSloSearch, searchCompleted } from './slo-search-stage.js';
import { type ConfigState, decideBeforeLaunch } from './state.js';
import { levelName, levelsLeft, levelWord } from './trials.js';

function newConfigState(config: ResolvedConfig): ConfigState {
  return {
    name: config.name,
    status: 'pending',
    launchFingerprint: config.launchFingerprint,
    verifiedConfigHash: null,
    completedLevels: [],
    lastPid: null,
    failure: null,
    supersededRuns: [],
    stage: null,
    stages: {},
  };
}

/** Moves the config's levels aside (never mixed in) and forgets what was kept under the old configuration. */
export async function supersede(
  configDir: string,
  st: ConfigState,
  reason: string,
  log: (l: string) => void,
): Promise<void> {
  const from = join(configDir, LEVELS_DIR);
  const name = `superseded-${new Date().toISOString().replace(/[-:.]/g, '')}`;
  const to = join(configDir, name);
  await rename(from, to).catch(() => undefined);
  st.supersededRuns.push(name);
  log(
    `  ${st.name}: re-running all levels because ${reason}; earlier levels moved to ${to} (never mixed in).`,
  );
  st.completedLevels = [];
  st.verifiedConfigHash = null;
  // results kept by stages (lossless answers) were taken under the old configuration
  st.stages = {};
}

/** Removes level directories that are not recorded as completed (a level interrupted by a kill). */
async function dropPartialLevels(configDir: string, completed: readonly number[]): Promise<number[]> {
  const dropped: number[] = [];
  const entries = await readdir(join(configDir, LEVELS_DIR)).catch(() => [] as string[]);
  for (const e of entries) {
    const idx = Number(e);
    if (Number.isInteger(idx) && !completed.includes(idx)) {
      await rm(join(configDir, LEVELS_DIR, e), { recursive: true, force: true });
      dropped.push(idx);
    }
  }
  return dropped;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Why a level recorded as completed cannot be kept (its directory, summary or records are gone), or null. */
async function missingLevelFiles(configDir: string, idx: number): Promise<string | null> {
  const dir = levelRunDir(configDir, idx);
  const rel = `${LEVELS_DIR}/${String(idx).padStart(2, '0')}`;
  if (!(await exists(dir))) return `${rel}/ is missing`;
  if ((await readLevelSummary(dir, idx)) === null) return `${rel}/summary.json is missing or unreadable`;
  if (!(await exists(join(dir, REQUESTS_FILE)))) return `${rel}/${REQUESTS_FILE} is missing`;
  return null;
}

/**
 * --resume: checks every level the state records as completed against the files; a level whose files
 * are gone is re-run (an SLO search with a missing probe is re-run whole), and the log says which and why.
 */
export async function verifyKeptLevels(
  configDir: string,
  st: ConfigState,
  plan: Parameters<typeof levelName>[0],
  search: boolean,
  log: (line: string) => void,
): Promise<void> {
  const kept: number[] = [];
  for (const idx of st.completedLevels) {
    const problem = await missingLevelFiles(configDir, idx);
    if (problem === null) {
      kept.push(idx);
      continue;
    }
    const what = search ? `SLO search probe ${idx + 1}` : levelName(plan, idx);
    log(
      `  ${st.name}: ${what} is recorded as completed but ${problem}; ${search ? 'the search' : 'it'} will be re-run.`,
    );
    if (search) st.searchCompleted = false;
  }
  if (kept.length < st.completedLevels.length && st.status === 'completed') st.status = 'pending';
  st.completedLevels = kept;
}

/** The config's run for its visit in round `trial`, prepared from what earlier runs left (see the file's header). */
export async function openConfigRun(
  m: MatrixContext,
  config: ResolvedConfig,
  trial: number,
): Promise<ConfigRun> {
  const dir = join(m.matrixDir, config.name);
  await mkdir(dir, { recursive: true });
  const prev = m.state.configs[config.name];
  const st = prev ?? newConfigState(config);
  m.state.configs[config.name] = st;
  const search = isSloSearch(m.plan);
  if (search && !searchCompleted(prev, config.launchFingerprint) && st.completedLevels.length > 0) {
    const n = await discardSearch(dir, st);
    m.log(
      `  ${config.name}: the earlier SLO search did not finish (or its launch spec changed); its ${n} probe(s) are discarded and the search is re-run from the start.`,
    );
  }
  const before = decideBeforeLaunch(prev, config.launchFingerprint);
  if (before.action === 'discard') await supersede(dir, st, before.reason, m.log);
  st.launchFingerprint = config.launchFingerprint;
  const dropped = await dropPartialLevels(dir, st.completedLevels);
  if (dropped.length > 0 && !search)
    m.log(
      `  ${config.name}: discarding interrupted level(s) ${dropped.map((i) => levelWord(m.plan, i)).join(', ')}; they will be re-run.`,
    );
  const levelsToRun = search ? [] : levelsLeft(m.plan, trial, st.completedLevels);
  return {
    m,
    config,
    dir,
    st,
    trial,
    search,
    levelsToRun,
    warnings: [],
    host: null,
    server: null,
    serverPids: [],
    checkpoint: null,
    session: null,
    failure: null,
    finishingCleanup: false,
  };
}

/** True when nothing of the config is left to run under the same launch spec. */
export function nothingLeft(r: ConfigRun): boolean {
  return r.search ? searchCompleted(r.st, r.config.launchFingerprint) : r.levelsToRun.length === 0;
}
