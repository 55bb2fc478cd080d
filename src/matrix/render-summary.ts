// The end-of-matrix summary: which configs completed (and how many levels), which did not and why,
// with the first lines of evidence, so a failed overnight run explains itself in one screen. With
// load.trials N the levels count every trial ("6/6 levels, 3 trials of 2").

import type { Plan } from '../plan/schema.js';
import type { MatrixResult } from './run-matrix.js';
import { matrixTrials } from './trials.js';

export function renderMatrixSummary(plan: Plan, result: MatrixResult): string {
  const lines: string[] = [];
  const trials = matrixTrials(plan);
  const total = plan.load.levels.length * trials;
  const ofTrials = trials > 1 ? `, ${trials} trials of ${plan.load.levels.length}` : '';
  const search = plan.load.kind === 'slo_search';
  lines.push(`Matrix ${result.matrixDir}${result.cancelled ? ' (interrupted; continue with --resume)' : ''}`);
  for (const c of result.configs) {
    // a search's probe count is its own; the plan's levels do not apply
    const levels = search
      ? `SLO search, ${c.completedLevels.length} probe(s)`
      : `${c.completedLevels.length}/${total} levels${ofTrials}`;
    if (c.status === 'completed') {
      lines.push(`  ✔ ${c.name}: completed, ${levels} → ${c.dir}`);
    } else {
      const why = c.failure ? `${c.failure.stage}: ${c.failure.message} [${c.failure.code}]` : c.status;
      lines.push(`  ✖ ${c.name}: ${c.status} (${levels} kept) — ${why}`);
      for (const ev of (c.failure?.evidence ?? []).slice(0, 6)) lines.push(`      ${ev}`);
    }
    for (const w of c.warnings) lines.push(`      ! ${w}`);
  }
  if (result.comparisonError) lines.push(`comparison not produced: ${result.comparisonError}`);
  return lines.join('\n');
}

/** Exit status for `benchgate run`: 0 when every selected config completed, 1 otherwise, 130 when interrupted. */
export function matrixExitCode(result: MatrixResult): number {
  if (result.cancelled) return 130;
  return result.configs.every((c) => c.status === 'completed') ? 0 : 1;
}
