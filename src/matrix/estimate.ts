// The plan preview printed before a matrix starts: configs, levels, trials (rounds × configs = launches),
// requests and a rough duration. Estimates use measured figures from a previous run when there are
// any, else a stated per-token model; every launch still to come costs its ready time.

import type { Plan } from '../plan/schema.js';
import type { LevelKey } from '../records/level-key.js';
import { probeRequests } from '../session/slo-probe.js';
import type { ResolvedConfig } from './config-plan.js';
import { levelsLeft, levelValueOf, matrixTrials, planLevelOf, trialOfLevel, trialsLeft } from './trials.js';

export interface EstimateInput {
  plan: Plan;
  configs: readonly ResolvedConfig[];
  /** Stored level indices already completed per config (resume), which cost nothing. */
  completedLevels?: Record<string, number[]>;
  /** Measured seconds from a previous run: per config, ready time and per-level durations. */
  measured?: Record<string, { readyS?: number; levelS?: Record<number, number> }>;
}

export interface ConfigEstimate {
  name: string;
  /** Stored level indices still to run (with trials, level i of trial t is (t−1)·L + i). */
  levelsToRun: number[];
  /** Launches still to come: one per trial with a level left (an SLO search: 1, or 0 when completed). */
  launches: number;
  requestsToRun: number;
  estimatedS: number;
  basis: 'previous run' | 'model';
  /** load.kind slo_search: the search runs at most this many probes (0: already completed). */
  searchProbesAtMost?: number;
}

/** Assumed decode time per output token (real time) when nothing was measured: a deliberately rough 20 ms. */
export const ASSUMED_ITL_S = 0.02;
export const ASSUMED_READY_S = 60;
/** A server whose command states its load (`benchgate sim --load-time S`): that load plus its process start. */
export const ASSUMED_START_S = 3;
/** Per config beyond ready and levels: checkpoint, smoke request, tokenizer choice, teardown. */
export const ASSUMED_CONFIG_OVERHEAD_S = 2;

/** Seconds until a config's server is ready when nothing was measured: its stated load time, else the assumed one. */
function assumedReadyS(argv: readonly string[]): number {
  const i = argv.indexOf('--load-time');
  const load = i >= 0 ? Number(argv[i + 1]) : Number.NaN;
  return Number.isFinite(load) && load >= 0 ? load + ASSUMED_START_S : ASSUMED_READY_S / timeScaleOf(argv);
}

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
  if (plan.load.kind === 'slo_search') return estimateSearch(input);
  const perLevelRequests =
    (plan.load.requests ?? (plan.load.duration === undefined ? 100 : 0)) + plan.load.warmup;
  return input.configs.map((c) => {
    const done = input.completedLevels?.[c.name] ?? [];
    const levelsToRun = levelsLeft(plan, matrixTrials(plan), done);
    const launches = trialsLeft(plan, done);
    const measured = input.measured?.[c.name];
    const scale = timeScaleOf(c.argv);
    let basis: ConfigEstimate['basis'] = 'model';
    let total = launches * ((measured?.readyS ?? assumedReadyS(c.argv)) + ASSUMED_CONFIG_OVERHEAD_S);
    for (const i of levelsToRun) {
      // a later trial of a level costs what its first trial was measured at
      const m = measured?.levelS?.[i] ?? measured?.levelS?.[planLevelOf(plan, i)];
      if (m !== undefined) {
        total += m;
        basis = 'previous run';
        continue;
      }
      total += modelLevelS(plan, levelValueOf(plan, i) ?? 0, plan.load.kind === 'concurrency', scale);
    }
    return {
      name: c.name,
      levelsToRun,
      launches,
      requestsToRun: perLevelRequests * levelsToRun.length,
      estimatedS: total,
      basis,
    };
  });
}

/** Seconds one level of `perLevelRequests` takes at `level` in the stated per-token model. */
function modelLevelS(
  plan: Plan,
  level: number,
  concurrency: boolean,
  scale: number,
  probe?: { requests: number; maxS: number },
): number {
  const perLevelRequests =
    (probe?.requests ?? plan.load.requests ?? (plan.load.duration === undefined ? 100 : 0)) +
    plan.load.warmup;
  const requestS = (meanTokens(plan.workload.output_tokens) * ASSUMED_ITL_S) / scale;
  const inFlight = concurrency ? level : Math.max(1, level * requestS);
  const byCount =
    perLevelRequests > 0 ? Math.ceil(perLevelRequests / inFlight) * requestS : Number.POSITIVE_INFINITY;
  const limitS = probe ? probe.maxS : plan.load.duration !== undefined ? durationS(plan.load.duration) : null;
  const byDuration = limitS ?? Number.POSITIVE_INFINITY;
  // an open-loop level lasts at least its arrivals' span
  const arrivalsS = concurrency ? 0 : perLevelRequests / level;
  return Math.min(Math.max(byCount, arrivalsS), byDuration);
}

/**
 * An SLO search probes loads it chooses as it goes: the estimate is an upper bound of max_probes probes
 * (each costed at the start value, the model's guess), and a completed search (resume) costs nothing.
 */
function estimateSearch(input: EstimateInput): ConfigEstimate[] {
  const { plan } = input;
  const s = plan.load.slo_search!;
  // probes are sized for the share's sample floor (session/slo-probe.ts), here at the start value
  const concurrency = s.over === 'concurrency';
  const first: LevelKey = concurrency
    ? { kind: 'concurrency', value: s.start }
    : { kind: 'rate', value: s.start, maxConcurrency: null };
  const requests = probeRequests(first, {
    share: s.share,
    atLeast: plan.load.requests ?? 0,
    maxRequests: s.max_probe_requests,
    maxS: s.max_probe_s,
  });
  const perLevelRequests = requests + plan.load.warmup;
  return input.configs.map((c) => {
    const done = (input.completedLevels?.[c.name] ?? []).length > 0;
    const probes = done ? 0 : s.max_probes;
    const scale = timeScaleOf(c.argv);
    const ready = (input.measured?.[c.name]?.readyS ?? assumedReadyS(c.argv)) + ASSUMED_CONFIG_OVERHEAD_S;
    const probeS = modelLevelS(plan, s.start, concurrency, scale, { requests, maxS: s.max_probe_s });
    return {
      name: c.name,
      levelsToRun: [...Array(probes).keys()],
      launches: done ? 0 : 1,
      requestsToRun: perLevelRequests * probes,
      estimatedS: done ? 0 : ready + probeS * probes,
      basis: 'model',
      searchProbesAtMost: probes,
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
  const s = plan.load.slo_search;
  if (plan.load.kind === 'slo_search' && s) {
    lines.push(
      `matrix: ${estimates.length} config(s); load: SLO search over ${s.over === 'rate' ? 'request rate (req/s)' : 'concurrency'} from ${s.start} (min ${s.min}, max ${s.max}), precision ${s.precision}, ${Number((s.share * 100).toFixed(2))}% of requests meeting the SLOs; at most ${s.max_probes} probes per config`,
    );
    for (const e of estimates)
      lines.push(
        e.searchProbesAtMost === 0
          ? `  ${e.name}: SLO search already completed; nothing to run`
          : `  ${e.name}: at most ${e.searchProbesAtMost} probes; at most ${e.requestsToRun} requests; up to ~${formatDurationS(e.estimatedS)} (${e.basis}, each probe costed at the start value)`,
      );
    return [...lines, totalLine(estimates)];
  }
  const unit = plan.load.kind === 'concurrency' ? 'concurrency' : 'req/s';
  lines.push(`matrix: ${estimates.length} config(s); levels (${unit}): ${plan.load.levels.join(', ')}`);
  const trials = matrixTrials(plan);
  if (trials > 1) lines.push(roundsLine(trials, estimates));
  for (const e of estimates) {
    const launches = trials > 1 ? `; ${e.launches} launch${e.launches === 1 ? '' : 'es'}` : '';
    lines.push(
      `  ${e.name}: levels ${levelsWords(plan, e.levelsToRun)}${launches}; ${e.requestsToRun} requests; ~${formatDurationS(e.estimatedS)} (${e.basis})`,
    );
  }
  lines.push(totalLine(estimates));
  return lines;
}

/** "trials: 3 rounds × 2 configs = 6 launches, …": every launch a config's full life. */
function roundsLine(trials: number, estimates: readonly ConfigEstimate[]): string {
  const all = trials * estimates.length;
  const left = estimates.reduce((a, e) => a + e.launches, 0);
  const still = left === all ? '' : ` (${left} still to run)`;
  return `trials: ${trials} rounds × ${estimates.length} configs = ${all} launches${still}; each round launches every config in turn (the same order each round), so drift over the run hits every config alike`;
}

/** The levels still to run: "1, 10", "1, 10 × 3 trials", or by trial when some are done already. */
function levelsWords(plan: Plan, idx: readonly number[]): string {
  if (idx.length === 0) return 'none (all completed)';
  const values = (list: readonly number[]) => list.map((i) => levelValueOf(plan, i)).join(', ');
  const trials = matrixTrials(plan);
  if (trials <= 1) return values(idx);
  if (idx.length === plan.load.levels.length * trials)
    return `${values(idx.slice(0, plan.load.levels.length))} × ${trials} trials`;
  const byTrial = new Map<number, number[]>();
  for (const i of idx) byTrial.set(trialOfLevel(plan, i), [...(byTrial.get(trialOfLevel(plan, i)) ?? []), i]);
  return [...byTrial].map(([t, list]) => `${values(list)} (trial ${t})`).join('; ');
}

function totalLine(estimates: readonly ConfigEstimate[]): string {
  const total = estimates.reduce((a, e) => a + e.estimatedS, 0);
  return `estimated total: ~${formatDurationS(total)} (rough: assumes ${ASSUMED_ITL_S * 1000} ms per output token unless measured)`;
}
