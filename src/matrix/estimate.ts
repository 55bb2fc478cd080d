// The plan preview printed before a matrix starts: configs, levels, requests and a rough duration.
// Estimates use measured figures from a previous run when there are any, else a stated per-token model.

import type { Plan } from '../plan/schema.js';
import type { ResolvedConfig } from './config-plan.js';

export interface EstimateInput {
  plan: Plan;
  configs: readonly ResolvedConfig[];
  /** Levels already completed per config (resume), which cost nothing. */
  completedLevels?: Record<string, number[]>;
  /** Measured seconds from a previous run: per config, ready time and per-level durations. */
  measured?: Record<string, { readyS?: number; levelS?: Record<number, number> }>;
}

export interface ConfigEstimate {
  name: string;
  levelsToRun: number[];
  requestsToRun: number;
  estimatedS: number;
  basis: 'previous run' | 'model';
}

/** Assumed decode time per output token (real time) when nothing was measured: a deliberately rough 20 ms. */
export const ASSUMED_ITL_S = 0.02;
export const ASSUMED_READY_S = 60;

/** A simulator's `--time-scale X` makes everything X times faster; real servers have none (1). */
export function timeScaleOf(argv: readonly string[]): number {
  const i = argv.indexOf('--time-scale');
  const v = i >= 0 ? Number(argv[i + 1]) : Number.NaN;
  return Number.isFinite(v) && v > 0 ? v : 1;
}

function meanTokens(t: Plan['workload']['output_tokens']): number {
  if ('fixed' in t) return t.fixed;
  if ('uniform' in t) return (t.uniform[0] + t.uniform[1]) / 2;
  return t.normal.mean;
}

export function estimateMatrix(input: EstimateInput): ConfigEstimate[] {
  const { plan } = input;
  const perLevelRequests =
    (plan.load.requests ?? (plan.load.duration === undefined ? 100 : 0)) + plan.load.warmup;
  const outTokens = meanTokens(plan.workload.output_tokens);
  return input.configs.map((c) => {
    const done = new Set(input.completedLevels?.[c.name] ?? []);
    const levelsToRun = plan.load.levels.map((_, i) => i).filter((i) => !done.has(i));
    const measured = input.measured?.[c.name];
    const scale = timeScaleOf(c.argv);
    let basis: ConfigEstimate['basis'] = 'model';
    let total = measured?.readyS ?? ASSUMED_READY_S / scale;
    for (const i of levelsToRun) {
      const m = measured?.levelS?.[i];
      if (m !== undefined) {
        total += m;
        basis = 'previous run';
        continue;
      }
      const level = plan.load.levels[i];
      const requestS = (outTokens * ASSUMED_ITL_S) / scale;
      const inFlight = plan.load.kind === 'concurrency' ? level : Math.max(1, level * requestS);
      const byCount =
        perLevelRequests > 0 ? Math.ceil(perLevelRequests / inFlight) * requestS : Number.POSITIVE_INFINITY;
      const byDuration =
        plan.load.duration !== undefined ? durationS(plan.load.duration) : Number.POSITIVE_INFINITY;
      total += Math.min(byCount, byDuration);
    }
    return {
      name: c.name,
      levelsToRun,
      requestsToRun: perLevelRequests * levelsToRun.length,
      estimatedS: total,
      basis,
    };
  });
}

function durationS(d: string | number): number {
  if (typeof d === 'number') return d;
  const m = /^(\d+(?:\.\d+)?)(ms|h|m|s)?$/.exec(d);
  if (!m) return Number.POSITIVE_INFINITY;
  const v = Number(m[1]);
  return m[2] === 'h' ? v * 3600 : m[2] === 'm' ? v * 60 : m[2] === 'ms' ? v / 1000 : v;
}

export function formatDurationS(s: number): string {
  if (!Number.isFinite(s)) return 'unknown';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** The preview lines (stderr). */
export function renderPlanPreview(plan: Plan, estimates: readonly ConfigEstimate[]): string[] {
  const lines: string[] = [];
  const unit = plan.load.kind === 'concurrency' ? 'concurrency' : 'req/s';
  lines.push(`matrix: ${estimates.length} config(s); levels (${unit}): ${plan.load.levels.join(', ')}`);
  for (const e of estimates) {
    const levels = e.levelsToRun.map((i) => plan.load.levels[i]).join(', ') || 'none (all completed)';
    lines.push(
      `  ${e.name}: levels ${levels}; ${e.requestsToRun} requests; ~${formatDurationS(e.estimatedS)} (${e.basis})`,
    );
  }
  const total = estimates.reduce((a, e) => a + e.estimatedS, 0);
  lines.push(
    `estimated total: ~${formatDurationS(total)} (rough: assumes ${ASSUMED_ITL_S * 1000} ms per output token unless measured)`,
  );
  return lines;
}
