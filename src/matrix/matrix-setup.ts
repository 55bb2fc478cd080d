// Before a matrix runs: the plan's configs checked and selected (--only), the matrix directory and state
// opened (new, or the one --resume names, its kept levels checked against the files), and the preview
// of what will run and how long it should take.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import type { Plan } from '../plan/schema.js';
import { duplicateConfigNames, type ResolvedConfig, resolveConfig } from './config-plan.js';
import { estimateMatrix, renderPlanPreview } from './estimate.js';
import { verifyKeptLevels } from './resume-config.js';
import { isSloSearch, searchCompleted } from './slo-search-stage.js';
import {
  decideBeforeLaunch,
  levelsOutsidePlan,
  MATRIX_STATE_FILE,
  type MatrixState,
  newMatrixState,
  readMatrixState,
} from './state.js';
import { matrixTrials } from './trials.js';

/** The configs to run, resolved; a plan without configs, duplicate names or unknown --only names are errors. */
export function selectConfigs(
  plan: Plan,
  where: string,
  only: readonly string[] | undefined,
): ResolvedConfig[] {
  const specs = plan.configs ?? [];
  if (specs.length === 0) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `${where} has no configs: benchgate run needs a configs: list to launch servers.`,
    );
  }
  const dups = duplicateConfigNames(specs);
  if (dups.length > 0) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `${where}: expected unique config names; found ${dups.map((d) => `"${d}"`).join(', ')} more than once.`,
    );
  }
  let selected = specs;
  if (only && only.length > 0) {
    const unknown = only.filter((n) => !specs.some((s) => s.name === n));
    if (unknown.length > 0) {
      throw new BenchgateError(
        'BG_E_USAGE',
        `--only expects config names from ${where} (${specs.map((s) => s.name).join(', ')}); found ${unknown.join(', ')}.`,
      );
    }
    selected = specs.filter((s) => only.includes(s.name));
  }
  return selected.map((s) => resolveConfig(plan, s, where));
}

function matrixIdFor(plan: Plan): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${(plan.name ?? 'matrix').replace(/[^\w.-]+/g, '_')}-${stamp}`;
}

/** How many stored level indices the plan has: its levels over every trial, or an SLO search's probe limit. */
const storedLevelCount = (plan: Plan): number =>
  isSloSearch(plan)
    ? (plan.load.slo_search?.max_probes ?? Number.POSITIVE_INFINITY)
    : plan.load.levels.length * matrixTrials(plan);

/** A new matrix directory and state, or the --resume one with its kept levels checked against the files. */
export async function openMatrix(o: {
  plan: Plan;
  planPath: string | null;
  resumeDir?: string;
  outDir?: string;
  configs: readonly ResolvedConfig[];
  log: (line: string) => void;
}): Promise<{ matrixDir: string; state: MatrixState }> {
  if (!o.resumeDir) {
    const id = matrixIdFor(o.plan);
    const matrixDir = join(o.outDir ?? o.plan.output, id);
    await mkdir(matrixDir, { recursive: true });
    return { matrixDir, state: newMatrixState(id, o.planPath) };
  }
  const state = await readMatrixState(o.resumeDir);
  if (!state) {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `--resume expects a matrix directory holding matrix-state.json; found none in ${o.resumeDir}.`,
    );
  }
  await mkdir(o.resumeDir, { recursive: true });
  levelsOutsidePlan(join(o.resumeDir, MATRIX_STATE_FILE), state, storedLevelCount(o.plan));
  // the state file alone is not trusted: a kept level must still have its files
  for (const c of o.configs) {
    const st = state.configs[c.name];
    if (st) await verifyKeptLevels(join(o.resumeDir, c.name), st, o.plan, isSloSearch(o.plan), o.log);
  }
  return { matrixDir: o.resumeDir, state };
}

/** The plan preview: what runs, what is kept from an earlier run, and the estimated time. */
export function matrixPreview(plan: Plan, configs: readonly ResolvedConfig[], state: MatrixState): string[] {
  const completedBefore: Record<string, number[]> = {};
  for (const c of configs) {
    const prev = state.configs[c.name];
    if (isSloSearch(plan)) {
      // a search is kept whole or re-run whole: only a completed one costs nothing
      if (prev && searchCompleted(prev, c.launchFingerprint)) completedBefore[c.name] = prev.completedLevels;
      continue;
    }
    const d = decideBeforeLaunch(prev, c.launchFingerprint);
    if (d.action === 'keep') completedBefore[c.name] = d.completedLevels;
  }
  return renderPlanPreview(
    plan,
    estimateMatrix({ plan, configs: [...configs], completedLevels: completedBefore }),
  );
}
