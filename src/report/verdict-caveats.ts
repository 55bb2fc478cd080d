// What a verdict sentence must say about its own evidence, inline: the levels whose latency is not
// judged because a run there had host timing noise (loop lag on the client's host measures the host,
// not the server), and the suspect checks (prefix cache, noise, token counts…) of the levels the verdict
// rests on. A caveat listed only in a section elsewhere is a caveat the reader of the sentence misses.

import { METRICS } from './metric-catalog.js';
import type { LevelRow, MetricId } from './types.js';

/** Short words for a suspect check inside a sentence; unknown checks are named as themselves. */
const CAVEAT_WORDS: Record<string, string> = {
  'prefix-cache': 'served from the prefix cache',
  'timing-noise': 'host timing noise',
  'error-rate': 'failed requests',
  'output-length': 'output lengths not as requested',
  'output-tokens': 'server and client token counts disagree',
  'prompt-tokens': 'prompt token counts differ from the plan',
  acceptance: 'speculative acceptance near 1',
};

/** True when the metric is a latency percentile, which host timing noise distorts directly. */
export function isLatencyMetric(metric: MetricId): boolean {
  return METRICS[metric].percentile !== undefined;
}

/** True when any of `runs` was suspect for host timing noise at this level. */
export function hostNoiseAt(row: LevelRow, runs: readonly string[]): boolean {
  return runs.some((r) =>
    (row.validity[r]?.reasons ?? []).some((x) => x.check === 'timing-noise' && x.severity !== 'note'),
  );
}

/** "SUSPECT: c=16 served from the prefix cache (b); c=4 host timing noise (a, b)" or "" when clean. */
export function suspectClause(rows: readonly LevelRow[], runs: readonly string[]): string {
  const parts: string[] = [];
  for (const row of rows) {
    const byCheck = new Map<string, string[]>();
    for (const run of runs)
      for (const r of row.validity[run]?.reasons ?? []) {
        if (r.severity !== 'suspect') continue;
        const who = byCheck.get(r.check) ?? [];
        if (!who.includes(run)) who.push(run);
        byCheck.set(r.check, who);
      }
    for (const [check, who] of byCheck)
      parts.push(`${row.label} ${CAVEAT_WORDS[check] ?? `${check} check`} (${who.join(', ')})`);
  }
  return parts.length ? ` Caveat, SUSPECT: ${parts.join('; ')}.` : '';
}

/** " No latency verdict at c=4, c=16: host timing noise (SUSPECT)." or "" when none was left out. */
export function hostNoiseClause(rows: readonly LevelRow[]): string {
  if (rows.length === 0) return '';
  return ` No latency verdict at ${rows.map((r) => r.label).join(', ')}: host timing noise (SUSPECT) measures the host, not the server.`;
}
