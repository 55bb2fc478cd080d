// The SLO search as a pure state machine: it proposes the next load value to probe and is told how the
// probe came out (pass, fail, or inconclusive: too few samples to judge). It brackets (multiplying the
// value by `growth` while probes pass, dividing while they fail), then bisects the bracket until it is
// narrower than `precision`, and confirms the answer by probing it once more before it stops. A load
// counts as passed only when every probe of it passed, so the answer is the highest passed load below
// the lowest failed one. A pass at or above a fail (non-monotonic: noise, a transient, a server whose
// behaviour is not monotonic in load) makes the search probe both ends of that pair once more before it
// goes on; the pairs are kept for the report. An inconclusive probe (too few samples) is run once more,
// which the driver makes bigger; a second inconclusive one at that load ends the search (its bounds are
// too tight to judge; the report says which). No I/O and no clocks, so the driver (which runs each probe as
// a level) and the tests share one algorithm.

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
  value: number;
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
  /** Highest value that passed (every probe of it) below the lowest failure; null when none did. */
  best: number | null;
  /** Lowest value that failed; null when no probe failed (the search maximum passed). */
  firstFail: number | null;
  probes: SloProbe[];
  nonMonotonic: NonMonotonicPair[];
  /** Why the search stopped. */
  stoppedBy: 'precision' | 'max-passed' | 'min-failed' | 'max-probes' | 'inconclusive';
}

export class SloSearch {
  readonly probes: SloProbe[] = [];
  private readonly pairs: NonMonotonicPair[] = [];
  private readonly repeats: number[] = [];
  private readonly repeated = new Set<number>();
  private readonly retried = new Set<number>();
  private stop: SloSearchResult['stoppedBy'] | null = null;

  constructor(private readonly spec: SloSearchSpec) {
    if (!(spec.growth > 1)) throw new Error('growth must be > 1');
    if (!(spec.precision > 0)) throw new Error('precision must be > 0');
  }

  private clamp(v: number): number {
    const c = Math.min(this.spec.max, Math.max(this.spec.min, v));
    return this.spec.integer ? Math.max(1, Math.round(c)) : c;
  }

  /** Lowest failed load (any probe of it failed). */
  private get hi(): number | null {
    const failed = this.probes.filter((p) => p.outcome === 'fail').map((p) => p.value);
    return failed.length ? Math.min(...failed) : null;
  }

  /** Loads every probe of which passed (inconclusive probes aside), ascending. */
  private passedLoads(): number[] {
    const values = [...new Set(this.probes.filter((p) => p.outcome === 'pass').map((p) => p.value))];
    return values
      .filter((v) => !this.probes.some((p) => p.value === v && p.outcome === 'fail'))
      .sort((a, b) => a - b);
  }

  /** Highest passed load below the lowest failure. */
  private get lo(): number | null {
    const hi = this.hi;
    const below = this.passedLoads().filter((v) => hi === null || v < hi);
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
      if (lo !== null && lo >= this.spec.max) return this.confirmOrEnd(lo, 'max-passed');
      return this.clamp((lo as number) * this.spec.growth);
    }
    if (lo === null) {
      if (hi <= this.spec.min) return this.end('min-failed');
      return this.clamp(hi / this.spec.growth);
    }
    if (hi - lo <= this.spec.precision) return this.confirmOrEnd(lo, 'precision');
    const mid = this.clamp((lo + hi) / 2);
    if (mid <= lo || mid >= hi) return this.confirmOrEnd(lo, 'precision'); // integer bracket of width 1
    return mid;
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

  /** Records the outcome of probing `value`; a new non-monotonic pair queues both its ends again. */
  report(value: number, share: number, outcome: ProbeOutcome): void {
    const repeat = this.probes.some((p) => p.value === value);
    this.probes.push({ value, share, passed: outcome === 'pass', outcome, repeat });
    const hi = this.hi;
    const passes = this.probes.filter((p) => p.outcome === 'pass').map((p) => p.value);
    if (hi === null || passes.length === 0 || Math.max(...passes) < hi) return;
    const pair = { failedAt: hi, passedAt: Math.max(...passes) };
    if (this.pairs.some((q) => q.failedAt === pair.failedAt && q.passedAt === pair.passedAt)) return;
    this.pairs.push(pair);
    for (const v of [pair.failedAt, pair.passedAt]) {
      if (this.repeated.has(v)) continue;
      this.repeated.add(v);
      this.repeats.push(v);
    }
  }

  result(): SloSearchResult {
    return {
      best: this.lo,
      firstFail: this.hi,
      probes: [...this.probes],
      nonMonotonic: [...this.pairs],
      stoppedBy: this.stop ?? 'max-probes',
    };
  }
}

/** Runs a whole search with `probe` (which runs one level and says how it came out). */
export async function searchSlo(
  spec: SloSearchSpec,
  probe: (value: number) => Promise<{ share: number; outcome: ProbeOutcome }>,
): Promise<SloSearchResult> {
  const s = new SloSearch(spec);
  for (let v = s.next(); v !== null; v = s.next()) {
    const r = await probe(v);
    s.report(v, r.share, r.outcome);
  }
  return s.result();
}
