// The SLO search as a pure state machine: it proposes the next load value to probe and is told whether
// the probe met the SLO. It brackets (multiplying the value by `growth` while probes pass, dividing while
// they fail) and then bisects the bracket until it is narrower than `precision`. No I/O and no clocks, so
// the driver (which runs each probe as a level) and the tests share one algorithm.

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

export interface SloProbe {
  value: number;
  /** Share of measured requests meeting every SLO. */
  share: number;
  passed: boolean;
}

export interface SloSearchResult {
  /** Highest value that passed; null when even `min` failed. */
  best: number | null;
  /** Lowest value that failed; null when `max` passed (the server was never saturated). */
  firstFail: number | null;
  probes: SloProbe[];
  /** Why the search stopped. */
  stoppedBy: 'precision' | 'max-passed' | 'min-failed' | 'max-probes';
}

export class SloSearch {
  private lo: number | null = null; // highest pass
  private hi: number | null = null; // lowest fail
  readonly probes: SloProbe[] = [];
  private stop: SloSearchResult['stoppedBy'] | null = null;

  constructor(private readonly spec: SloSearchSpec) {
    if (!(spec.growth > 1)) throw new Error('growth must be > 1');
    if (!(spec.precision > 0)) throw new Error('precision must be > 0');
  }

  private clamp(v: number): number {
    const c = Math.min(this.spec.max, Math.max(this.spec.min, v));
    return this.spec.integer ? Math.max(1, Math.round(c)) : c;
  }

  /** The next value to probe, or null when the search is over. */
  next(): number | null {
    if (this.stop !== null) return null;
    if (this.probes.length >= this.spec.maxProbes) {
      this.stop = 'max-probes';
      return null;
    }
    const { lo, hi } = this;
    if (lo === null && hi === null) return this.clamp(this.spec.start);
    if (hi === null) {
      if (lo !== null && lo >= this.spec.max) return this.end('max-passed');
      return this.clamp((lo as number) * this.spec.growth);
    }
    if (lo === null) {
      if (hi <= this.spec.min) return this.end('min-failed');
      return this.clamp(hi / this.spec.growth);
    }
    if (hi - lo <= this.spec.precision) return this.end('precision');
    const mid = this.clamp((lo + hi) / 2);
    if (mid <= lo || mid >= hi) return this.end('precision'); // integer bracket of width 1
    return mid;
  }

  private end(reason: SloSearchResult['stoppedBy']): null {
    this.stop = reason;
    return null;
  }

  /** Records the outcome of probing `value`. */
  report(value: number, share: number, passed: boolean): void {
    this.probes.push({ value, share, passed });
    if (passed && (this.lo === null || value > this.lo)) this.lo = value;
    if (!passed && (this.hi === null || value < this.hi)) this.hi = value;
  }

  result(): SloSearchResult {
    return {
      best: this.lo,
      firstFail: this.hi,
      probes: [...this.probes],
      stoppedBy: this.stop ?? 'max-probes',
    };
  }
}

/** Runs a whole search with `probe` (which runs one level and returns the share meeting the SLO). */
export async function searchSlo(
  spec: SloSearchSpec,
  requiredShare: number,
  probe: (value: number) => Promise<number>,
): Promise<SloSearchResult> {
  const s = new SloSearch(spec);
  for (let v = s.next(); v !== null; v = s.next()) {
    const share = await probe(v);
    s.report(v, share, share >= requiredShare);
  }
  return s.result();
}
