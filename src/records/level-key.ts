// A load level's identity and its labels, beside the request records that carry its index: the key
// (kind, value, cap), the short label for tables and logs ("c=16", "2 req/s (cap 8)") and the words for
// sentences ("concurrency 16", "rate 2 req/s"). Load, metrics, reports, progress and the matrix all
// use these, so a level reads the same everywhere.

export interface LevelKey {
  kind: 'concurrency' | 'rate';
  /** Concurrency (requests in flight) or offered rate (requests/s). */
  value: number;
  /** For rate levels, the optional concurrency cap. */
  maxConcurrency?: number | null;
}

/** "c=16" or "2 req/s (cap 8)": for tables and log lines. */
export function levelLabel(k: LevelKey): string {
  if (k.kind === 'concurrency') return `c=${k.value}`;
  return `${k.value} req/s${k.maxConcurrency ? ` (cap ${k.maxConcurrency})` : ''}`;
}

/** "concurrency 16" or "rate 2 req/s": for sentences and progress. */
export function levelWords(k: LevelKey): string {
  return k.kind === 'concurrency' ? `concurrency ${k.value}` : `rate ${levelLabel(k)}`;
}
