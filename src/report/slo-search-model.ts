// The SLO search as a report sees it: per run, the answer (highest load meeting the SLOs for the stated
// share), the bracket it is known within, the SLOs and preset used, what stopped the search and every
// probe in the order run; and, across runs, one verdict per run against the baseline on the found loads.
// The answer carries a 95% interval over every probe (metrics/slo-answer-interval.ts, written by the
// search driver), so two runs differ only when their intervals do not overlap: a bracket alone carries no
// noise (two searches of one config can land in disjoint brackets). Files written before the interval
// fall back to the brackets [highest pass, lowest fail). Pure: renderers (slo-search-section.ts) turn it
// into text.

import type { SloAnswerInterval } from '../metrics/slo-answer-interval.js';
import type { LoadedRun } from '../results/layout.js';
import type { SloProbeEvidenceRecord, SloSearchRecord } from '../results/slo-search-record.js';
import { formatChange, formatPercent } from './format.js';

export interface SloSearchProbeRow {
  /** 1-based position in the order run (= level index + 1). */
  order: number;
  value: number;
  share: number;
  passed: boolean;
  outcome: 'pass' | 'fail' | 'inconclusive';
  /** Why, in words (absent in files written before probes carried it). */
  reason: string | null;
  repeat: boolean;
  evidence: SloProbeEvidenceRecord | null;
}

export type SloSearchView =
  | {
      run: string;
      status: 'unreadable';
      /** Why the run's slo-search.json could not be used, with an excerpt. */
      reason: string;
    }
  | {
      run: string;
      status: 'read';
      over: 'rate' | 'concurrency';
      requiredShare: number;
      slo: SloSearchRecord['slo'];
      preset: string | null;
      precision: number;
      best: number | null;
      firstFail: number | null;
      /** The answer's 95% interval over every probe; null in files written before it. */
      interval: SloAnswerInterval | null;
      /** The answer was probed a second time and passed again; null in files written before it. */
      confirmed: boolean | null;
      stoppedBy: SloSearchRecord['stoppedBy'] | 'interrupted';
      /** The answer in one sentence, e.g. "highest request rate meeting the SLOs for 99% of requests: 14 req/s (…)". */
      answer: string;
      sloText: string;
      stoppedText: string;
      /** What the answer rests on: offered vs achieved, steady window, share with its sample count. */
      evidenceText: string | null;
      /** Loads that failed below a passed one (each end probed again), in words; empty when monotonic. */
      nonMonotonicText: string[];
      probes: SloSearchProbeRow[];
    };

export interface SloSearchSection {
  runs: SloSearchView[];
  /** One sentence per non-baseline run with a search, against the baseline's search. */
  verdicts: string[];
}

type ReadView = Extract<SloSearchView, { status: 'read' }>;

/** A load value with its unit: "14 req/s" or "concurrency 14". */
export function loadWords(over: 'rate' | 'concurrency', v: number): string {
  const n = String(Number(v.toFixed(3)));
  return over === 'rate' ? `${n} req/s` : `concurrency ${n}`;
}

const bare = (v: number) => String(Number(v.toFixed(3)));

export function sloText(slo: SloSearchRecord['slo'], preset: string | null): string {
  const parts = [
    slo.ttft_ms !== undefined ? `TTFT ≤ ${slo.ttft_ms} ms` : null,
    slo.tpot_ms !== undefined ? `TPOT ≤ ${slo.tpot_ms} ms` : null,
    slo.e2e_ms !== undefined ? `E2E ≤ ${slo.e2e_ms} ms` : null,
  ].filter(Boolean);
  return `${parts.join(', ') || 'none recorded'}${preset ? ` (preset ${preset})` : ''}`;
}

function stoppedText(r: SloSearchRecord, by: ReadView['stoppedBy']): string {
  switch (by) {
    case 'interrupted':
      return 'interrupted before the search ended; the bracket is as far as it got';
    case 'precision':
      return `the bracket narrowed to the precision (${bare(r.precision)})`;
    case 'max-passed':
      return 'the search maximum passed: the SLOs were never missed, so the answer is at least that';
    case 'min-failed':
      return 'even the search minimum failed';
    case 'max-probes':
      return 'the probe limit (max_probes) was reached before the bracket narrowed to the precision';
    case 'stalled':
      return 'asking for another load no longer changed the load the schedule offered: the bracket is as narrow as probes can be placed';
    case 'inconclusive':
      return 'a probe was inconclusive (too few samples to judge the share within max_probe_requests / max_probe_s): start higher or raise those bounds';
  }
}

/** "52.1–58.4", with a censored end as a bound ("≥ 64"). */
const rangeWords = (i: SloAnswerInterval) =>
  `${i.lowCensored ? `≤ ${bare(i.low as number)}` : bare(i.low as number)}–${i.highCensored ? `≥ ${bare(i.high as number)}` : bare(i.high as number)}`;

/** "95% interval 52.1–58.4 req/s over 7 probes"; null without an interval. */
export function intervalWords(
  over: 'rate' | 'concurrency',
  i: SloAnswerInterval | null | undefined,
): string | null {
  if (!i || i.low === null || i.high === null) return null;
  const range = over === 'rate' ? `${rangeWords(i)} req/s` : `concurrency ${rangeWords(i)}`;
  return `95% interval ${range} over ${i.probes} probes`;
}

function answer(r: SloSearchRecord): string {
  const what = r.over === 'rate' ? 'request rate' : 'concurrency';
  const share = formatPercent(r.requiredShare);
  if (r.best === null)
    return `no probed ${what} met the SLOs for ${share} of requests${r.firstFail !== null ? ` (lowest failing probe: ${loadWords(r.over, r.firstFail)})` : ''}`;
  const bracket =
    r.firstFail !== null
      ? `lowest failing probe: ${loadWords(r.over, r.firstFail)}`
      : 'no probe failed: at least this';
  const interval = intervalWords(r.over, r.interval);
  const confirmed =
    r.confirmed === undefined
      ? ''
      : r.confirmed
        ? '; confirmed by a second probe'
        : '; not confirmed by a second probe';
  const offered = r.over === 'rate' && r.probes.some((p) => p.offered !== undefined) ? ' offered' : '';
  return `highest ${what} meeting the SLOs for ${share} of requests: ${loadWords(r.over, r.best)}${offered} (${bracket}${interval ? `; ${interval}` : ''}${confirmed})`;
}

const num = (v: number) => String(Number(v.toPrecision(3)));

/** "achieved 35.6 of 36.1 req/s (99%) over a 20.3 s steady window; 99.9% of 700 judged requests met the SLOs (≥662 needed)". */
export function evidenceWords(e: SloProbeEvidenceRecord): string {
  const what = e.unit === 'req/s' ? 'req/s' : 'in flight';
  const held = `achieved ${num(e.achieved)} of ${num(e.offered)} ${what} (${formatPercent(e.offered > 0 ? e.achieved / e.offered : 0)})`;
  const window = e.steady
    ? ` over a ${num(e.steady.windowS)} s steady window (ramp-up ${num(e.steady.rampUpS)} s, drain ${num(e.steady.drainS)} s)`
    : ' (no steady window)';
  const need = e.floor === null ? 'no sample count shows 100%' : `≥${e.floor} needed`;
  const share = e.samples > 0 ? formatPercent(e.met / e.samples) : 'none';
  return `${held}${window}; ${share} of ${e.samples} judged requests met the SLOs (${need})`;
}

function answerEvidence(r: SloSearchRecord): string | null {
  if (r.best === null) return null;
  const p = [...r.probes].reverse().find((q) => (q.offered ?? q.value) === r.best && q.passed);
  if (!p?.evidence) return null;
  return `at ${loadWords(r.over, r.best)}: ${evidenceWords(p.evidence)}${r.tolerance !== undefined ? `; a probe must achieve ${formatPercent(r.tolerance)} of its offered load` : ''}`;
}

const outcomeOf = (p: SloSearchRecord['probes'][number]) => p.outcome ?? (p.passed ? 'pass' : 'fail');

function nonMonotonicText(r: SloSearchRecord): string[] {
  return (r.nonMonotonic ?? []).map((q) => {
    const at = (v: number) =>
      r.probes
        .filter((p) => p.value === v)
        .map(outcomeOf)
        .join(', ');
    return `not monotonic: ${loadWords(r.over, q.failedAt)} failed below a pass at ${loadWords(r.over, q.passedAt)}; both probed again (${bare(q.failedAt)}: ${at(q.failedAt)}; ${bare(q.passedAt)}: ${at(q.passedAt)}); a load counts as passed only when every probe of it passed`;
  });
}

export function sloSearchView(run: LoadedRun): SloSearchView | null {
  const s = run.sloSearch;
  if (!s || s.kind === 'unknown') return null;
  if (s.kind === 'unreadable')
    return { run: run.name, status: 'unreadable', reason: `${s.reason} (got: ${s.excerpt})` };
  const r = s.value;
  const by = r.interrupted ? 'interrupted' : r.stoppedBy;
  return {
    run: run.name,
    status: 'read',
    over: r.over,
    requiredShare: r.requiredShare,
    slo: r.slo,
    preset: r.preset,
    precision: r.precision,
    best: r.best,
    firstFail: r.firstFail,
    interval: r.interval ?? null,
    confirmed: r.confirmed ?? null,
    stoppedBy: by,
    answer: answer(r),
    sloText: sloText(r.slo, r.preset),
    stoppedText: stoppedText(r, by),
    evidenceText: answerEvidence(r),
    nonMonotonicText: nonMonotonicText(r),
    probes: r.probes.map((p, i) => ({
      order: i + 1,
      value: p.value,
      share: p.share,
      passed: p.passed,
      outcome: outcomeOf(p),
      reason: p.reason ?? null,
      repeat: p.repeat === true,
      evidence: p.evidence ?? null,
    })),
  };
}

/** Where the true answer can lie: [highest pass (0 when none), lowest fail (∞ when none)). */
const bracketOf = (v: ReadView): [number, number] => [v.best ?? 0, v.firstFail ?? Number.POSITIVE_INFINITY];

function bracketWords(v: ReadView): string {
  const [lo, hi] = bracketOf(v);
  if (hi === Number.POSITIVE_INFINITY) return `≥ ${bare(lo)}`;
  return v.best === null ? `< ${bare(hi)}` : `${bare(lo)}–${bare(hi)}`;
}

const holds = (v: ReadView) =>
  v.best === null ? 'meets the SLOs at no probed load' : `holds ${loadWords(v.over, v.best)} under the SLOs`;

/** One sentence comparing a run's found load with the baseline's. */
export function searchVerdict(run: SloSearchView, base: SloSearchView): string {
  if (run.status === 'unreadable' || base.status === 'unreadable') {
    const bad = run.status === 'unreadable' ? run.run : base.run;
    return `${run.run} vs ${base.run}: no SLO-search verdict (${bad}'s slo-search.json is unreadable).`;
  }
  if (run.over !== base.over)
    return `${run.run} vs ${base.run}: no SLO-search verdict (${run.run} searched ${run.over}, ${base.run} ${base.over}).`;
  if (run.sloText !== base.sloText || run.requiredShare !== base.requiredShare)
    return `${run.run} vs ${base.run}: no SLO-search verdict (different SLOs: ${run.sloText} for ${formatPercent(run.requiredShare)} vs ${base.sloText} for ${formatPercent(base.requiredShare)}).`;
  const interrupted = [run, base].filter((v) => v.stoppedBy === 'interrupted').map((v) => v.run);
  const note = interrupted.length ? `; ${interrupted.join(' and ')} interrupted` : '';
  const baseWords = base.best === null ? `${base.run} at no probed load` : `${base.run} ${bare(base.best)}`;
  const head = `${run.run} ${holds(run)}, ${baseWords}`;
  const byInterval = intervalVerdict(run, base, head, note);
  if (byInterval) return byInterval;
  const [rLo, rHi] = bracketOf(run);
  const [bLo, bHi] = bracketOf(base);
  const evidence = `brackets ${bracketWords(run)} and ${bracketWords(base)}`;
  if (!(rHi <= bLo || bHi <= rLo))
    return `${head}: no difference beyond the search precision (${evidence} overlap${note}).`;
  const change =
    run.best !== null && base.best !== null && base.best > 0
      ? ` (${formatChange(run.best / base.best)}`
      : ' (';
  return `${head}${change}${change === ' (' ? '' : '; '}${evidence} do not overlap${note}).`;
}

/** Where an answer can lie at 95%: a censored end is open. */
function rangeOf(i: SloAnswerInterval): [number, number] {
  return [
    i.lowCensored ? 0 : (i.low as number),
    i.highCensored ? Number.POSITIVE_INFINITY : (i.high as number),
  ];
}

/** The verdict by the answers' intervals, when both runs carry one; null sends the caller to the brackets. */
function intervalVerdict(run: ReadView, base: ReadView, head: string, note: string): string | null {
  const ri = run.interval;
  const bi = base.interval;
  if (!ri || !bi || ri.low === null || ri.high === null || bi.low === null || bi.high === null) return null;
  const [rLo, rHi] = rangeOf(ri);
  const [bLo, bHi] = rangeOf(bi);
  const evidence = `95% intervals ${rangeWords(ri)} and ${rangeWords(bi)}`;
  if (rLo <= bHi && bLo <= rHi) return `${head}: no meaningful difference (${evidence} overlap${note}).`;
  const change =
    ri.estimate !== null && bi.estimate !== null && bi.estimate > 0
      ? `${formatChange(ri.estimate / bi.estimate)} at the fitted answers; `
      : '';
  return `${head} (${change}${evidence} do not overlap${note}).`;
}

/** The section, or undefined when no run carries a search (nothing to show). */
export function sloSearchSection(runs: readonly LoadedRun[], baseline: string): SloSearchSection | undefined {
  const views = runs.map(sloSearchView).filter((v): v is SloSearchView => v !== null);
  if (views.length === 0) return undefined;
  const base = views.find((v) => v.run === baseline);
  const verdicts = runs
    .filter((r) => r.name !== baseline)
    .map((r) => {
      const v = views.find((x) => x.run === r.name);
      if (!base) return `${r.name} vs ${baseline}: no SLO-search verdict (the baseline has no SLO search).`;
      if (!v) return `${r.name} vs ${baseline}: no SLO-search verdict (${r.name} has no SLO search).`;
      return searchVerdict(v, base);
    });
  return { runs: views, verdicts };
}
