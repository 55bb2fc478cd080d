// One SLO-search probe judged on its records, and how many requests a probe sends. A probe passes only
// when (1) it held its offered load over a steady window: open loop, completions/s over the window at
// least `tolerance` × arrivals/s over it; closed loop, the steady-state window of metrics/steady-state.ts
// exists and the requests held in flight over it are at least `tolerance` × N; and (2) the share of the
// window's requests meeting every SLO is at least `share`, judged on at least the sample floor the tail
// rule (metrics/tail-samples.ts) sets for that percentile (662 for 99%). Fewer samples are inconclusive,
// unless the misses already rule the share out with the tail rule's confidence (then the probe fails).
// Open-loop steady window: from the first completion (the pipeline is full) to the last arrival (the load
// stops; after it the queue only drains). Pure: no I/O.

import type { ProbeOutcome } from '../load/slo-search.js';
import { meetsSlo } from '../metrics/goodput.js';
import { requestLatencies } from '../metrics/request-latency.js';
import { steadyState } from '../metrics/steady-state.js';
import type { SloSpec } from '../metrics/summary.js';
import { minSamplesFor, TAIL_CONFIDENCE } from '../metrics/tail-samples.js';
import type { LevelKey } from '../records/level-key.js';
import { type RequestRecord, succeeded } from '../records/request-record.js';
import type { SloProbeEvidenceRecord } from '../results/slo-search-record.js';

export type ProbeEvidence = SloProbeEvidenceRecord;

export interface ProbeJudgement {
  outcome: ProbeOutcome;
  share: number;
  /** Why, in words: "achieved 54.2 of 60 req/s (90%)", "312 samples; ≥662 needed". */
  reason: string;
  evidence: ProbeEvidence;
}

export interface ProbeCriteria {
  slo: SloSpec;
  share: number;
  tolerance: number;
}

/** Measured requests a probe sends: enough for the floor after the ramp, within the plan's bounds. */
export function probeRequests(
  level: LevelKey,
  o: { share: number; atLeast: number; maxRequests: number; maxS: number },
): number {
  const floor = minSamplesFor(o.share * 100);
  // open loop: the window starts at the first completion; closed loop: ramp-up and drain hold ~N each
  const wanted =
    level.kind === 'concurrency' ? Math.ceil(floor / 0.9) + 2 * level.value : Math.ceil(floor / 0.85);
  const byTime = level.kind === 'rate' ? Math.floor(level.value * o.maxS) : Number.POSITIVE_INFINITY;
  return Math.max(1, Math.min(Math.max(wanted, o.atLeast), o.maxRequests, byTime));
}

/** P[Binomial(n, p) >= k], summed in logs (n up to a probe's size). */
export function binomialAtLeast(n: number, p: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  let logTerm = k * Math.log(p) + (n - k) * Math.log1p(-p);
  for (let i = 1; i <= k; i++) logTerm += Math.log((n - k + i) / i); // log C(n, k)
  let sum = 0;
  for (let i = k; i <= n; i++) {
    sum += Math.exp(logTerm);
    logTerm += Math.log((n - i) / (i + 1)) + Math.log(p) - Math.log1p(-p);
  }
  return Math.min(1, sum);
}

interface Window {
  startMs: number;
  endMs: number;
  rampUpS: number;
  drainS: number;
  judged: RequestRecord[];
  offered: number;
  achieved: number;
}

function openLoopWindow(measured: RequestRecord[], rate: number): Window | string {
  const ok = measured.filter(succeeded);
  if (ok.length === 0) return 'no request completed';
  const startMs = Math.min(...ok.map((r) => r.endMs));
  const endMs = Math.max(...measured.map((r) => r.scheduledMs));
  if (!(endMs > startMs)) return 'the load stopped before the first answer came back';
  const windowS = (endMs - startMs) / 1000;
  const judged = measured.filter((r) => r.scheduledMs >= startMs && r.scheduledMs <= endMs);
  const done = ok.filter((r) => r.endMs >= startMs && r.endMs <= endMs).length;
  return {
    startMs,
    endMs,
    rampUpS: (startMs - Math.min(...measured.map((r) => r.scheduledMs))) / 1000,
    drainS: (Math.max(...measured.map((r) => r.endMs)) - endMs) / 1000,
    judged,
    // arrivals actually scheduled in the window (a seeded Poisson schedule wanders around the nominal rate)
    offered: judged.length > 0 ? judged.length / windowS : rate,
    achieved: done / windowS,
  };
}

function closedLoopWindow(measured: RequestRecord[], n: number): Window | string {
  const st = steadyState(measured, n);
  if (!st.ok) return st.reason;
  const { startMs, endMs, windowS } = st.steady;
  let busyMs = 0;
  for (const r of measured) busyMs += Math.max(0, Math.min(r.endMs, endMs) - Math.max(r.sentMs, startMs));
  return {
    startMs,
    endMs,
    rampUpS: st.steady.rampUpS,
    drainS: st.steady.drainS,
    judged: measured.filter((r) => r.sentMs >= startMs && r.endMs <= endMs),
    offered: n,
    achieved: busyMs / 1000 / windowS,
  };
}

const fmt = (v: number) => String(Number(v.toPrecision(3)));
const pct = (v: number) => `${Number((v * 100).toFixed(1))}%`;

/** Judges one probe from its records (warmup ones are left out here). */
export function judgeProbe(
  level: LevelKey,
  records: readonly RequestRecord[],
  c: ProbeCriteria,
): ProbeJudgement {
  const measured = records.filter((r) => !r.warmup);
  const needed = minSamplesFor(c.share * 100);
  const floor = Number.isFinite(needed) ? needed : null;
  const unit = level.kind === 'rate' ? 'req/s' : 'concurrency';
  const w =
    level.kind === 'rate' ? openLoopWindow(measured, level.value) : closedLoopWindow(measured, level.value);
  const base = { unit, floor, sent: measured.length } as const;
  if (typeof w === 'string') {
    const evidence = {
      ...base,
      offered: level.value,
      achieved: 0,
      sustained: false,
      steady: null,
      samples: 0,
      met: 0,
    };
    const outcome = /no request completed/.test(w) ? 'fail' : 'inconclusive';
    return { outcome, share: 0, reason: `no steady window: ${w}`, evidence };
  }
  // a failed request is a miss, as in goodput
  const met = w.judged.filter((r) => succeeded(r) && meetsSlo(requestLatencies(r), c.slo)).length;
  const samples = w.judged.length;
  const share = samples > 0 ? met / samples : 0;
  const sustained = w.achieved >= c.tolerance * w.offered;
  const evidence: ProbeEvidence = {
    ...base,
    offered: w.offered,
    achieved: w.achieved,
    sustained,
    steady: { windowS: (w.endMs - w.startMs) / 1000, rampUpS: w.rampUpS, drainS: w.drainS },
    samples,
    met,
  };
  const held = `achieved ${fmt(w.achieved)} of ${fmt(w.offered)} ${unit === 'req/s' ? 'req/s' : 'in flight'} (${pct(w.achieved / w.offered)})`;
  const shareWords = `${pct(share)} of ${samples} met the SLOs`;
  if (!sustained)
    return { outcome: 'fail', share, reason: `not sustained: ${held}, below ${pct(c.tolerance)}`, evidence };
  if (floor !== null && samples >= floor) {
    const outcome = share >= c.share ? 'pass' : 'fail';
    return { outcome, share, reason: `${held}; ${shareWords} (needs ${pct(c.share)})`, evidence };
  }
  // too few samples to show the share is met; enough misses may still show it is not
  if (binomialAtLeast(samples, 1 - c.share, samples - met) <= 1 - TAIL_CONFIDENCE)
    return {
      outcome: 'fail',
      share,
      reason: `${held}; ${shareWords}: too many misses for ${pct(c.share)} even on ${samples} samples`,
      evidence,
    };
  return {
    outcome: 'inconclusive',
    share,
    reason: `${held}; ${shareWords}, but ${samples} samples cannot show ${pct(c.share)} (${floor === null ? 'no sample count can' : `≥${floor} needed`})`,
    evidence,
  };
}
