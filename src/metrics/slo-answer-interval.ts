// The interval on an SLO search's answer. The bracket [highest pass, lowest fail) says where one run of
// probes put the answer, but carries no noise: a probe's share meeting the SLOs is itself a sample. So the
// answer is also read from all the probes at once: the share meeting the SLOs is fitted against the load
// each probe offered by isotonic regression (pool-adjacent-violators, weighted by the requests judged, the
// share forced not to rise with load), the answer is where the fit crosses the required share (linear
// between the two fitted loads around the crossing), and its 95% interval comes from a bootstrap over
// probes (resample the probes with replacement, and each resampled probe's share within its binomial
// noise; refit; read the crossing again). A probe that did not sustain its offered load counts as a share
// of 0. Pure, seeded, bounded by `iterations`.

import { normal, type Rng, seededRng } from '../core/seeded-random.js';

export interface SloPoint {
  /** The load the probe offered (req/s or concurrency). */
  offered: number;
  /** Requests judged and those meeting every SLO. */
  samples: number;
  met: number;
  /** Held its offered load; an unsustained probe counts as a share of 0. */
  sustained: boolean;
}

export interface SloAnswerInterval {
  /** Where the fit over every probe crosses the required share; null when no probe can be fitted. */
  estimate: number | null;
  /** 95% bootstrap interval of the crossing. */
  low: number | null;
  high: number | null;
  /** The crossing lies below the lowest probed load (the fit never reaches the share) or above the highest (never drops below it) in more than 2.5% of resamples: that end is only a bound. */
  lowCensored: boolean;
  highCensored: boolean;
  confidence: number;
  iterations: number;
  /** Probes the fit rests on. */
  probes: number;
}

interface Weighted {
  x: number;
  y: number;
  w: number;
}

/** Non-increasing least-squares fit (pool adjacent violators) of points sorted by x; equal x pooled first. */
export function antitonicFit(points: readonly Weighted[]): Weighted[] {
  const blocks: Weighted[] = [];
  for (const p of [...points].sort((a, b) => a.x - b.x)) {
    const last = blocks.at(-1);
    if (last && last.x === p.x) {
      last.y = (last.y * last.w + p.y * p.w) / (last.w + p.w);
      last.w += p.w;
    } else blocks.push({ ...p });
  }
  // each stack entry: a block of consecutive loads sharing one fitted share
  const stack: { xs: number[]; y: number; w: number }[] = [];
  for (const b of blocks) {
    stack.push({ xs: [b.x], y: b.y, w: b.w });
    while (stack.length > 1 && stack[stack.length - 2].y < stack[stack.length - 1].y) {
      const top = stack.pop() as { xs: number[]; y: number; w: number };
      const under = stack[stack.length - 1];
      under.y = (under.y * under.w + top.y * top.w) / (under.w + top.w);
      under.w += top.w;
      under.xs.push(...top.xs);
    }
  }
  return stack.flatMap((s) => s.xs.map((x) => ({ x, y: s.y, w: s.w })));
}

/** Where a non-increasing fit crosses `share`: below the lowest load, above the highest, or between two. */
export function crossing(
  fit: readonly Weighted[],
  share: number,
): { value: number; censored: 'low' | 'high' | null } {
  const k = fit.findLastIndex((p) => p.y >= share);
  if (k < 0) return { value: fit[0].x, censored: 'low' };
  if (k === fit.length - 1) return { value: fit[k].x, censored: 'high' };
  const a = fit[k];
  const b = fit[k + 1];
  return { value: a.x + ((a.y - share) / (a.y - b.y)) * (b.x - a.x), censored: null };
}

const asWeighted = (p: SloPoint): Weighted => ({
  x: p.offered,
  y: p.sustained && p.samples > 0 ? p.met / p.samples : 0,
  w: Math.max(1, p.samples),
});

/** One bootstrap resample: probes drawn with replacement, each share redrawn within its binomial noise. */
function resample(points: readonly Weighted[], rng: Rng): Weighted[] {
  return points.map(() => {
    const p = points[Math.floor(rng() * points.length)];
    const centre = (p.y * p.w + 0.5) / (p.w + 1); // never a variance of 0 at a share of exactly 0 or 1
    const y = Math.min(1, Math.max(0, p.y + normal(rng) * Math.sqrt((centre * (1 - centre)) / p.w)));
    return { ...p, y };
  });
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1) + 0.5)))];

/** The answer's estimate and its 95% interval from the probes; nulls without a probe to fit. */
export function sloAnswerInterval(
  probes: readonly SloPoint[],
  requiredShare: number,
  o: { iterations?: number; seed?: number } = {},
): SloAnswerInterval {
  const iterations = Math.min(Math.max(o.iterations ?? 1000, 1), 20_000);
  const points = probes.filter((p) => Number.isFinite(p.offered) && p.offered > 0).map(asWeighted);
  const empty = { estimate: null, low: null, high: null, lowCensored: false, highCensored: false };
  if (points.length === 0) return { ...empty, confidence: 0.95, iterations: 0, probes: 0 };
  const rng = seededRng(o.seed ?? 1);
  const values: number[] = [];
  let below = 0;
  let above = 0;
  for (let i = 0; i < iterations; i++) {
    const c = crossing(antitonicFit(resample(points, rng)), requiredShare);
    values.push(c.value);
    if (c.censored === 'low') below++;
    if (c.censored === 'high') above++;
  }
  values.sort((a, b) => a - b);
  return {
    estimate: crossing(antitonicFit(points), requiredShare).value,
    low: quantile(values, 0.025),
    high: quantile(values, 0.975),
    lowCensored: below > 0.025 * iterations,
    highCensored: above > 0.025 * iterations,
    confidence: 0.95,
    iterations,
    probes: points.length,
  };
}
