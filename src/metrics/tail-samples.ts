// Honest tails: how many samples a percentile needs before it can be shown. The rule reproduces MLPerf's
// early-stopping minimums (p90 needs 64 samples, p99 needs 662) from the binomial bound, so it extends to any
// percentile: the q-th percentile is supported by n samples when, with 99% confidence, the true q-quantile
// lies at or below the second-largest sample, i.e. P[Binomial(n, 1 - q) <= 1] <= 0.01.
// Derivation and table: docs/verdicts.md ("Honest tails").

/** Confidence the rule demands; 0.99 reproduces MLPerf's 64 (p90) and 662 (p99). */
export const TAIL_CONFIDENCE = 0.99;

/** P[Binomial(n, r) <= 1] = (1 - r)^n + n r (1 - r)^(n - 1), in logs for large n. */
function atMostOneAbove(n: number, r: number): number {
  const logStay = Math.log1p(-r);
  return Math.exp(n * logStay) + n * r * Math.exp((n - 1) * logStay);
}

const cache = new Map<number, number>();

/** Smallest sample count that supports percentile p (0 < p < 100); p <= 0 needs 1 sample, p >= 100 never. */
export function minSamplesFor(p: number): number {
  if (p <= 0) return 1;
  if (p >= 100) return Number.POSITIVE_INFINITY;
  const hit = cache.get(p);
  if (hit !== undefined) return hit;
  const r = 1 - p / 100;
  // the probability falls monotonically in n: double to bracket, then bisect
  let hi = 2;
  while (atMostOneAbove(hi, r) > 1 - TAIL_CONFIDENCE) hi *= 2;
  let lo = Math.floor(hi / 2);
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (atMostOneAbove(mid, r) > 1 - TAIL_CONFIDENCE) lo = mid;
    else hi = mid;
  }
  cache.set(p, hi);
  return hi;
}

/** Whether `n` samples support percentile p. */
export function supportsPercentile(n: number, p: number): boolean {
  return n >= minSamplesFor(p);
}

/** The highest whole percentile n samples support (null: none), the bound a short run can show. */
export function highestSupportedPercentile(n: number): number | null {
  let best: number | null = null;
  for (let p = 1; p <= 99; p++) if (supportsPercentile(n, p)) best = p;
  if (best === 99) for (const p of [99.5, 99.9, 99.99]) if (supportsPercentile(n, p)) best = p;
  return best;
}

/** "p99 n/a (40 samples; ≥662 needed, up to p90 supported)" — the words every renderer uses. */
export function unsupportedNote(p: number, n: number): string {
  const up = highestSupportedPercentile(n);
  return `p${p} n/a (${n} samples; ≥${minSamplesFor(p)} needed${up !== null ? `, up to p${up} supported` : ''})`;
}

/** Parses a summary percentile key ("p99", "p99.9") to its number; null for anything else. */
export function percentileOfKey(key: string): number | null {
  const m = /^p(\d+(?:\.\d+)?)$/.exec(key);
  return m ? Number(m[1]) : null;
}

/** A distribution's percentile p when its sample count supports it; null when withheld or absent. */
export function supportedPercentile(
  d: { count: number; percentiles: Record<string, number | null> } | null | undefined,
  p: number,
): number | null {
  const v = d?.percentiles[`p${p}`];
  if (typeof v !== 'number' || !Number.isFinite(v)) return null;
  return supportsPercentile(d?.count ?? 0, p) ? v : null;
}

/** The note that replaces a withheld percentile ("p99 n/a (…)"), or null when it is supported or absent. */
export function withheldNote(
  d: { count: number; percentiles: Record<string, number | null> } | null | undefined,
  p: number,
): string | null {
  if (!d || d.percentiles[`p${p}`] === undefined) return null;
  return supportsPercentile(d.count, p) ? null : unsupportedNote(p, d.count);
}

type Shaped = { count: number; percentiles: Record<string, number | null> };
const isDistribution = (v: unknown): v is Shaped =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Shaped).count === 'number' &&
  typeof (v as Shaped).percentiles === 'object' &&
  (v as Shaped).percentiles !== null;

/**
 * A copy of a summary for the run files and `--json`: every distribution's percentiles that its `count`
 * cannot support are null (the count stays beside them), so no surface reads a bare tail number.
 */
export function withholdUnsupported<T>(value: T, depth = 0): T {
  if (depth > 6 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => withholdUnsupported(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withholdUnsupported(v, depth + 1);
  if (isDistribution(value)) {
    const kept: Record<string, number | null> = {};
    for (const [k, v] of Object.entries(value.percentiles)) {
      const p = percentileOfKey(k);
      kept[k] = p !== null && !supportsPercentile(value.count, p) ? null : v;
    }
    out.percentiles = kept;
  }
  return out as T;
}
