// The prefix-cache section of every report: per run and level, the share of the measured prompt tokens
// the server served from its cache, where the figure came from, and (shared-prefix workloads) the share
// the workload expects. A level not meant to share whose share is material is also SUSPECT in the
// validity section (metrics/validity.ts); this section shows the figure for every level either way.

import { cacheShareText } from '../metrics/cache-share.js';
import type { LevelKey } from '../metrics/summary.js';
import type { LoadedRun } from '../results/layout.js';
import { compareLevelKeys, levelLabel } from './levels.js';
import { workloadShares } from './validity.js';

export interface CacheRow {
  run: string;
  levelIndex: number;
  level: LevelKey;
  /** The level's label, with its trial when the run repeated it ("c=8 trial 2"). */
  label: string;
  /** Σ cached / Σ prompt tokens over the measured requests; null when unknown or not recorded. */
  share: number | null;
  source: 'per-request' | 'metrics-counters' | null;
  /** shared_prefix: the share the workload expects; null otherwise. */
  expectedShare: number | null;
  /** The workload shares prompt tokens on purpose (its share is what it measures). */
  declaredSharing: boolean;
  /** The level's one-line account, e.g. "0.0% of prompt tokens (per request, 40/40 reported)". */
  text: string;
}

export const CACHE_TITLE = "Prefix cache: share of the measured prompt tokens served from the server's cache";

/** One row per level of every run; empty when no run recorded cache evidence (imports, older runs). */
export function cacheRows(runs: readonly LoadedRun[]): CacheRow[] {
  if (!runs.some((r) => r.summary.levels.some((l) => l.cache !== undefined))) return [];
  return runs.flatMap((run) =>
    [...run.summary.levels]
      .sort((a, b) => compareLevelKeys(a.level, b.level) || (a.trial ?? 0) - (b.trial ?? 0))
      .map((l) => ({
        run: run.name,
        levelIndex: l.levelIndex,
        level: l.level,
        label: `${levelLabel(l.level)}${l.trial !== undefined ? ` trial ${l.trial}` : ''}`,
        share: l.cache?.share ?? null,
        source: l.cache?.source ?? null,
        expectedShare: l.cache?.expectedShare ?? null,
        declaredSharing: workloadShares(run),
        text: cacheShareText(l.cache),
      })),
  );
}

/** "run c=8: 0.0% of prompt tokens (…)" per row, for text and Markdown. */
export function cacheLines(rows: readonly CacheRow[] | undefined, single: boolean): string[] {
  return (rows ?? []).map((r) => `${single ? '' : `${r.run} `}${r.label}: ${r.text}`);
}

export function cacheHtml(
  rows: readonly CacheRow[] | undefined,
  single: boolean,
  esc: (s: string) => string,
): string {
  if (!rows?.length) return '';
  const items = cacheLines(rows, single).map((t) => `<li>${esc(t)}</li>`);
  return `<h2 id="prefix-cache">${esc(CACHE_TITLE)}</h2><ul>${items.join('')}</ul>`;
}
