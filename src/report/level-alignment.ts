// Aligning load levels across runs for a comparison: a level is identified by its kind, value and cap
// (never its position in a plan), and a run's repeated trials of one level (`trial` set) become one
// aligned level: their summaries pooled (metrics/trials.ts) and their per-request values laid out trial
// after trial, with each trial's count, for the hierarchical bootstrap.

import { toWallEpochMs } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import type { LevelKey, LevelSummary } from '../metrics/summary.js';
import { poolTrials } from '../metrics/trials.js';
import type { LoadedRun } from '../results/layout.js';
import { compareLevelKeys, levelId, levelLabel } from './levels.js';
import { type RequestValues, requestValues } from './request-values.js';

export interface AlignedLevel {
  /** The level's summary, pooled over its trials (the summary itself when it ran once). */
  summary: LevelSummary;
  /** Each trial's own summary, in trial order. */
  trials: LevelSummary[];
  /** Per-request values of every trial, trial after trial. */
  values: RequestValues[];
  /** How many of `values` each trial holds, in the same order. */
  groups: number[];
  /** When each trial ran, in wall-clock epoch ms (first send to last end); null without records or anchor. */
  spans: (TrialSpan | null)[];
}

export interface TrialSpan {
  startMs: number;
  endMs: number;
}

export interface AlignedRow {
  key: LevelKey;
  id: string;
  /** Per run name; a run without the level is absent. */
  perRun: Map<string, AlignedLevel>;
}

/** When each level of a run ran (its measured records), in wall-clock epoch ms, keyed by level index. */
function spansByLevel(run: LoadedRun): Map<number, TrialSpan> {
  const m = new Map<number, TrialSpan>();
  const anchor = run.manifest?.anchor;
  if (!anchor) return m;
  for (const r of run.records) {
    const start = toWallEpochMs(anchor, r.sentMs);
    const end = toWallEpochMs(anchor, r.endMs);
    const s = m.get(r.levelIndex);
    if (!s) m.set(r.levelIndex, { startMs: start, endMs: end });
    else {
      s.startMs = Math.min(s.startMs, start);
      s.endMs = Math.max(s.endMs, end);
    }
  }
  return m;
}

/** Per-request values of each level of a run, keyed by level index. */
function valuesByLevel(run: LoadedRun): Map<number, RequestValues[]> {
  const m = new Map<number, RequestValues[]>();
  for (const r of run.records) {
    const v = requestValues(r);
    if (!v) continue;
    const list = m.get(r.levelIndex) ?? [];
    m.set(r.levelIndex, list);
    list.push(v);
  }
  return m;
}

/** One run's levels grouped by level id, trials in order, pooled. */
export function runLevels(run: LoadedRun): Map<string, AlignedLevel> {
  const byId = new Map<string, LevelSummary[]>();
  for (const l of run.summary.levels) {
    const id = levelId(l.level);
    byId.set(id, [...(byId.get(id) ?? []), l]);
  }
  const values = valuesByLevel(run);
  const spans = spansByLevel(run);
  const out = new Map<string, AlignedLevel>();
  for (const [id, list] of byId) {
    const trials = [...list].sort((a, b) => (a.trial ?? 0) - (b.trial ?? 0) || a.levelIndex - b.levelIndex);
    const perTrial = trials.map((t) => values.get(t.levelIndex) ?? []);
    out.set(id, {
      summary: poolTrials(trials, run.records),
      trials,
      values: perTrial.flat(),
      groups: perTrial.map((v) => v.length),
      spans: trials.map((t) => spans.get(t.levelIndex) ?? null),
    });
  }
  return out;
}

/**
 * Every level any run has, in load order, each with the runs that measured it. Runs that share no level
 * cannot be compared (unless every run is an SLO search: those compare their found loads).
 */
export function alignLevels(runs: readonly LoadedRun[]): AlignedRow[] {
  const rows = new Map<string, AlignedRow>();
  for (const run of runs) {
    for (const [id, level] of runLevels(run)) {
      const row = rows.get(id) ?? { key: level.summary.level, id, perRun: new Map<string, AlignedLevel>() };
      rows.set(id, row);
      row.perRun.set(run.name, level);
    }
  }
  const ordered = [...rows.values()].sort((a, b) => compareLevelKeys(a.key, b.key));
  const shared = ordered.some((r) => r.perRun.size === runs.length);
  const allSearches = runs.every((r) => r.sloSearch?.kind === 'value');
  if (runs.length > 1 && !shared && !allSearches) {
    const have = runs.map(
      (r) => `${r.name} has ${r.summary.levels.map((l) => levelLabel(l.level)).join(', ') || 'no levels'}`,
    );
    throw new BenchgateError('BG_E_RUN_DIR', `The runs share no load level to compare: ${have.join('; ')}.`);
  }
  return ordered;
}

/**
 * The most trials any level of `run` has in the aligned rows (1 without repeated trials). Only levels
 * tagged as trials count: an SLO search that probed one load twice ran it again, not as a trial.
 */
export function trialsOf(rows: readonly AlignedRow[], run: string): number {
  let most = 1;
  for (const r of rows) {
    const tagged = r.perRun.get(run)?.trials.filter((t) => t.trial !== undefined).length ?? 0;
    most = Math.max(most, tagged);
  }
  return most;
}
