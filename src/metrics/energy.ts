// Energy per output token of a level: GPU power (nvidia-smi power.draw, one series per GPU) integrated
// over the level's measured window by the trapezoid rule, summed over GPUs, divided by the level's
// output tokens. A window the samples do not fully cover is integrated over the part they cover and
// scaled by the mean power of that part; below half coverage, or with no power at all, the figure is
// null with the reason, never 0.

import type { MeasuredWindow } from './window.js';

export interface PowerSample {
  /** ms on the run's monotonic anchor, like record times. */
  tMs: number;
  gpu: number;
  powerW: number | null;
}

/** The level's power samples, or why there are none (no nvidia-smi, another machine, …). */
export type PowerInput = { samples: readonly PowerSample[] } | { reason: string };

export interface EnergySummary {
  /** Σ over GPUs of the energy drawn over the measured window (J); null with `reason` when not known. */
  joules: number | null;
  /** joules / window seconds. */
  meanPowerW: number | null;
  gpus: number;
  /** The part of the window the power samples cover (the shortest over GPUs), s. */
  coveredS: number;
  windowS: number;
  outputTokens: number;
  source: 'nvidia-smi power.draw';
  reason: string | null;
}

/** Share of the window the samples must cover for a figure to be given. */
const MIN_COVERAGE = 0.5;

/** Trapezoid integral (W·ms) of one GPU's series clipped to [a, b], and the span it covers (ms). */
function integrate(points: readonly { t: number; w: number }[], a: number, b: number) {
  const at = (i: number, t: number) => {
    const p = points[i];
    const q = points[i + 1];
    return p.w + ((q.w - p.w) * (t - p.t)) / (q.t - p.t);
  };
  let area = 0;
  let covered = 0;
  for (let i = 0; i + 1 < points.length; i++) {
    const lo = Math.max(points[i].t, a);
    const hi = Math.min(points[i + 1].t, b);
    if (hi <= lo || points[i + 1].t <= points[i].t) continue;
    area += ((at(i, lo) + at(i, hi)) / 2) * (hi - lo);
    covered += hi - lo;
  }
  return { area, covered };
}

export function energyOverWindow(
  power: PowerInput,
  window: MeasuredWindow,
  outputTokens: number,
): { energyPerTokenJ: number | null; energy: EnergySummary } {
  const base = {
    gpus: 0,
    coveredS: 0,
    windowS: window.durationS,
    outputTokens,
    source: 'nvidia-smi power.draw' as const,
  };
  const none = (reason: string, more: Partial<EnergySummary> = {}) => ({
    energyPerTokenJ: null,
    energy: { joules: null, meanPowerW: null, ...base, ...more, reason },
  });
  if ('reason' in power) return none(power.reason);
  const byGpu = new Map<number, { t: number; w: number }[]>();
  for (const s of power.samples) {
    const list = byGpu.get(s.gpu) ?? [];
    byGpu.set(s.gpu, list);
    if (s.powerW !== null && Number.isFinite(s.powerW)) list.push({ t: s.tMs, w: s.powerW });
  }
  if (byGpu.size === 0) return none('nvidia-smi gave no GPU samples during the level');
  if (!(window.durationS > 0)) return none('the level has no measured window', { gpus: byGpu.size });
  let meanW = 0;
  let coveredMs = Number.POSITIVE_INFINITY;
  for (const [gpu, points] of byGpu) {
    points.sort((x, y) => x.t - y.t);
    const { area, covered } = integrate(points, window.startMs, window.endMs);
    coveredMs = Math.min(coveredMs, covered);
    if (covered < MIN_COVERAGE * window.durationS * 1000)
      return none(
        `the power samples of GPU ${gpu} cover ${(covered / 1000).toFixed(2)} s of the ${window.durationS.toFixed(2)} s measured window (power.draw ${points.length === 0 ? 'not reported' : `read ${points.length} times`})`,
        { gpus: byGpu.size, coveredS: covered / 1000 },
      );
    meanW += area / covered;
  }
  const joules = meanW * window.durationS;
  const more = { gpus: byGpu.size, coveredS: coveredMs / 1000 };
  if (outputTokens <= 0)
    return {
      energyPerTokenJ: null,
      energy: { joules, meanPowerW: meanW, ...base, ...more, reason: 'the level produced no output tokens' },
    };
  return {
    energyPerTokenJ: joules / outputTokens,
    energy: { joules, meanPowerW: meanW, ...base, ...more, reason: null },
  };
}
