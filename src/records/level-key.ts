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
  /** A trace replay's level: the speed factor the plan gave (value is the mean rate it offered). */
  speedFactor?: number;
}

const cap = (k: LevelKey) => (k.maxConcurrency ? ` (cap ${k.maxConcurrency})` : '');

/** "c=16", "2 req/s (cap 8)" or, for a trace replayed 1.5 times as fast, "×1.5 (13.514 req/s)": for tables and log lines. */
export function levelLabel(k: LevelKey): string {
  if (k.kind === 'concurrency') return `c=${k.value}`;
  if (k.speedFactor !== undefined)
    return `×${k.speedFactor} (${k.value} req/s${cap(k).replace(/^ \(/, ', ').replace(/\)$/, '')})`;
  return `${k.value} req/s${cap(k)}`;
}

/** "concurrency 16", "rate 2 req/s" or "trace ×1.5 (13.514 req/s)": for sentences and progress. */
export function levelWords(k: LevelKey): string {
  if (k.kind === 'concurrency') return `concurrency ${k.value}`;
  return k.speedFactor !== undefined ? `trace ${levelLabel(k)}` : `rate ${levelLabel(k)}`;
}

/** A level's identity across runs ("concurrency:16:"): its kind, value and cap, never its plan position. */
export function levelId(k: LevelKey): string {
  return `${k.kind}:${k.value}:${k.maxConcurrency ?? ''}`;
}
