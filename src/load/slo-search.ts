// The SLO search as a pure state machine: it proposes the next load value to probe and is told how the
// probe came out (pass, fail, or inconclusive: too few samples to judge). It brackets (multiplying the
// value by `growth` while probes pass, dividing while they fail), then bisects the bracket until it is
// narrower than `precision`, and confirms the answer by probing it once more before it stops. A load
// counts as passed only when every probe of it passed, so the answer is the highest passed load below
// the lowest failed one. A pass at or above a fail (non-monotonic: noise, a transient, a server whose
// behaviour is not monotonic in load) makes the search probe both ends of that pair once more before it
// goes on; the pairs are kept for the report. An inconclusive probe (too few samples) is run once more,
// which the driver makes bigger; a second inconclusive one at that load ends the search (its bounds are
// too tight to judge; the report says which). The bracket is kept on the load each probe *offered* (what
// its schedule actually sent over its steady window: a seeded Poisson schedule at a nominal 57.5 req/s may
// offer 52), not the nominal value asked for; the nominal values are what a load's repeats and its
// confirmation are keyed by. No I/O and no clocks, so the driver (which runs each probe as a level) and the
// tests share one algorithm.

export interface SloSearchSpec {
  /** First value probed (requests/s or concurrency). */
  start: number;
  /** Stop bisecting when hi - lo <= precision (same unit as the values). */
  precision: number;
  /** Lowest and highest values the search may probe. */
  min: number;
  max: number;
  /** Bracketing factor (> 1). */
  growth: number;
  /** Hard cap on probes, so a flaky server cannot keep the search running. */
  maxProbes: number;
  /** Concurrency searches probe integers only. */
  integer: boolean;
}

export type ProbeOutcome = 'pass' | 'fail' | 'inconclusive';

export interface SloProbe {
  /** The nominal load asked for. */
  value: number;
  /** The load the probe offered (arrivals/s over its steady window, or concurrency); = value when unknown. */
  offered: number;
  /** Share of the judged requests meeting every SLO. */
  share: number;
  passed: boolean;
  outcome: ProbeOutcome;
  /** True when this probe repeated a load to settle a non-monotonic pair. */
  repeat: boolean;
}

/** A load that failed at or below one that passed (the same load: passed once, failed once); both ends were probed once more. */
export interface NonMonotonicPair {
  failedAt: number;
  passedAt: number;
}

export interface SloSearchResult {
  /** Highest offered load that passed (every probe of its nominal value) below the lowest failure; null when none did. */
  best: number | null;
  /** Lowest offered load that failed; null when no probe failed (the search maximum passed). */
  firstFail: number | null;
  /** The answer's nominal load was probed at least twice and passed every time. */
  confirmed: boolean;
  probes: SloProbe[];
  nonMonotonic: NonMonotonicPair[];
  /** Why the search stopped. */
  stoppedBy: 'precision' | 'max-passed' | 'min-failed' | 'max-probes' | 'inconclusive' | 'stalled';
}

export class SloSearch {
  readonly probes: SloProbe[] = [];
  private readonly pairs: NonMonotonicPair[] = [];
  private readonly repeats: number[] = [];
  private readonly repeated = new Set<number>();
  private readonly retried = new Set<number>();
  private stop: SloSearchResult['stoppedBy'] | null = null;
  /** The bracket when the last new probe was proposed. */
  private lastBracket: string | null = null;

  constructor(private readonly spec: SloSearchSpec) {
    if (!(spec.growth > 1)) throw new Error('growth must be > 1');
    if (!(spec.precision > 0)) throw new Error('precision must be > 0');
  }

  private clamp(v: number): number {
    const c = Math.min(this.spec.max, Math.max(this.spec.min, v));
    return this.spec.integer ? Math.max(1, Math.round(c)) : c;
  }

  /** Lowest offered load that failed, with its nominal value. */
  private get failure(): { value: number; at: number } | null {
    let low: SloProbe | null = null;
    for (const p of this.probes) if (p.outcome === 'fail' && (!low || p.offered < low.offered)) low = p;
    return low ? { value: low.value, at: low.offered } : null;
  }

  private get hi(): number | null {
    return this.failure?.at ?? null;
  }

  /** Nominal loads every probe of which passed (inconclusive probes aside), at the least they offered. */
  private passedLoads(): { value: number; at: number }[] {
    const out = new Map<number, number>();
    for (const p of this.probes)
      if (p.outcome === 'pass') out.set(p.value, Math.min(out.get(p.value) ?? p.offered, p.offered));
    for (const p of this.probes) if (p.outcome === 'fail') out.delete(p.value);
    return [...out].map(([value, at]) => ({ value, at })).sort((a, b) => a.at - b.at);
  }

  /** Highest passed load below the lowest failure. */
  private get lo(): { value: number; at: number } | null {
    const hi = this.hi;
    const below = this.passedLoads().filter((l) => hi === null || l.at < hi);
    return below.length ? below[below.length - 1] : null;
  }

  /** The next value to probe, or null when the search is over. */
  next(): number | null {
    if (this.stop !== null) return null;
    if (this.probes.length >= this.spec.maxProbes) return this.end('max-probes');
    const queued = this.repeats.shift();
    if (queued !== undefined) return queued;
    const last = this.probes.at(-1);
    if (last?.outcome === 'inconclusive') {
      // once more, bigger (the driver sizes it from the samples the first one got); twice: the bounds are too tight
      if (this.retried.has(last.value)) return this.end('inconclusive');
      this.retried.add(last.value);
      return last.value;
    }
    const { lo, hi } = this;
    if (lo === null && hi === null) return this.clamp(this.spec.start);
    if (hi === null) {
      if (lo !== null && lo.value >= this.spec.max) return this.confirmOrEnd(lo.value, 'max-passed');
      const from = lo as { value: number; at: number };
      return this.fresh(this.ask(from.at * this.spec.growth, from), from);
    }
    if (lo === null) {
      if ((this.failure?.value ?? hi) <= this.spec.min) return this.end('min-failed');
      return this.fresh(this.ask(hi / this.spec.growth, this.failure), null);
    }
    if (hi - lo.at <= this.spec.precision) return this.confirmOrEnd(lo.value, 'precision');
    const target = (lo.at + hi) / 2;
    if (this.clamp(target) <= lo.at || this.clamp(target) >= hi)
      return this.confirmOrEnd(lo.value, 'precision'); // integer bracket of width 1
    return this.fresh(this.ask(target, lo), lo);
  }

  /** The nominal load expected to offer `target`, scaled as the nearest probe's schedule offered. */
  private ask(target: number, near: { value: number; at: number } | null): number {
    const ratio = near && near.at > 0 ? near.value / near.at : 1;
    return this.clamp(Number((target * ratio).toPrecision(3))); // a load a person can read and ask for again
  }

  /**
   * A new probe, unless asking moves nothing: a nominal load already probed would offer about what it
   * offered before, and a bracket the last new probe left unchanged says the schedules cannot place a probe
   * inside it. The search has then stalled, and the answer is confirmed instead.
   */
  private fresh(v: number, lo: { value: number } | null): number | null {
    const bracket = `${this.lo?.at}|${this.hi}`;
    if (!this.probes.some((p) => p.value === v) && bracket !== this.lastBracket) {
      this.lastBracket = bracket;
      return v;
    }
    return lo ? this.confirmOrEnd(lo.value, 'stalled') : this.end('stalled');
  }

  /** The answer is probed a second time before the search ends on it. */
  private confirmOrEnd(answer: number, reason: SloSearchResult['stoppedBy']): number | null {
    if (this.repeated.has(answer)) return this.end(reason);
    this.repeated.add(answer);
    return answer;
  }

  private end(reason: SloSearchResult['stoppedBy']): null {
    this.stop = reason;
    return null;
  }

  /** Records the outcome of probing `value` (which offered `offered`); a new non-monotonic pair queues both its ends again. */
  report(value: number, share: number, outcome: ProbeOutcome, offered = value): void {
    const repeat = this.probes.some((p) => p.value === value);
    this.probes.push({ value, offered, share, passed: outcome === 'pass', outcome, repeat });
    const failure = this.failure;
    const passes = this.probes.filter((p) => p.outcome === 'pass');
    if (failure === null || passes.length === 0) return;
    const top = passes.reduce((a, b) => (b.offered > a.offered ? b : a));
    if (top.offered < failure.at) return;
    // kept in nominal values, the loads the report finds the probes by
    const pair = { failedAt: failure.value, passedAt: top.value };
    if (this.pairs.some((q) => q.failedAt === pair.failedAt && q.passedAt === pair.passedAt)) return;
    this.pairs.push(pair);
    for (const v of [pair.failedAt, pair.passedAt]) {
      if (this.repeated.has(v)) continue;
      this.repeated.add(v);
      this.repeats.push(v);
    }
  }

  result(): SloSearchResult {
    const lo = this.lo;
    const probesOfAnswer = lo ? this.probes.filter((p) => p.value === lo.value) : [];
    return {
      best: lo?.at ?? null,
      firstFail: this.hi,
      confirmed: probesOfAnswer.length >= 2 && probesOfAnswer.every((p) => p.outcome === 'pass'),
      probes: [...this.probes],
      nonMonotonic: [...this.pairs],
      stoppedBy: this.stop ?? 'max-probes',
    };
  }
}

/** Runs a whole search with `probe` (which runs one level and says how it came out). */
export async function searchSlo(
  spec: SloSearchSpec,
  probe: (value: number) => Promise<{ share: number; outcome: ProbeOutcome; offered?: number }>,
): Promise<SloSearchResult> {
  const s = new SloSearch(spec);
  for (let v = s.next(); v !== null; v = s.next()) {
    const r = await probe(v);
    s.report(v, r.share, r.outcome, r.offered);
  }
  return s.result();
}
