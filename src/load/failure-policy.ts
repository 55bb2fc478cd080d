// What a level does about failed requests, so a dead or overloaded server is not hammered and a level
// that is mostly errors ends early with a clear reason instead of writing failures as fast as the
// server can refuse them:
// - back-off: after a failure the server may be overloaded or restarting (connect error, HTTP 5xx or
//   429, a stream reset), the next send waits a capped exponential delay with jitter; the count of
//   consecutive such failures is level-wide and a success resets it.
// - error-rate stop: once at least `minRequests` requests of the level are complete and more than
//   `rate` of them failed (any error), the level stops sending.

import { seededRng } from '../core/seeded-random.js';
import type { RequestRecord } from '../records/request-record.js';

export interface BackoffSpec {
  initialMs: number;
  maxMs: number;
}

export interface ErrorStopSpec {
  /** Fraction of failed requests (0..1) the level may reach; strictly more stops it. */
  rate: number;
  minRequests: number;
}

export interface ErrorStop {
  failed: number;
  total: number;
  rate: number;
  /** The most common error code among the failures and one of its messages. */
  topCode: string;
  topMessage: string;
  topCount: number;
}

/** A failure that says the server is unavailable or overloaded: wait before sending again. */
export function backsOff(r: RequestRecord): boolean {
  const code = r.error?.code;
  if (code === 'BG_E_CONNECT' || code === 'BG_E_STREAM_TRUNCATED') return true;
  if (code !== 'BG_E_HTTP_STATUS') return false;
  const s = r.httpStatus;
  return s === null || s === 429 || s >= 500;
}

export class FailurePolicy {
  private consecutive = 0;
  private total = 0;
  private failed = 0;
  private readonly byCode = new Map<string, { count: number; message: string }>();
  private readonly rng;
  stopped: ErrorStop | null = null;

  constructor(
    private readonly backoff: BackoffSpec | null,
    private readonly errorStop: ErrorStopSpec | null,
    seed: number,
  ) {
    this.rng = seededRng(seed);
  }

  /** Counts one complete record; returns the back-off delay (ms) before the next send, 0 for none. */
  observe(r: RequestRecord): number {
    this.total++;
    if (r.error) {
      this.failed++;
      const seen = this.byCode.get(r.error.code);
      if (seen) seen.count++;
      else this.byCode.set(r.error.code, { count: 1, message: r.error.message });
    }
    this.checkStop();
    if (!backsOff(r)) {
      if (!r.error) this.consecutive = 0;
      return 0;
    }
    this.consecutive++;
    return this.delayMs();
  }

  /** Capped exponential delay with "equal jitter": between half and all of min(max, initial·2^(k−1)). */
  private delayMs(): number {
    if (!this.backoff || this.consecutive === 0) return 0;
    const capped = Math.min(
      this.backoff.maxMs,
      this.backoff.initialMs * 2 ** Math.min(this.consecutive - 1, 30),
    );
    return capped / 2 + (this.rng() * capped) / 2;
  }

  private checkStop(): void {
    const s = this.errorStop;
    if (this.stopped || !s || this.total < s.minRequests || this.failed / this.total <= s.rate) return;
    let top = { code: '', count: 0, message: '' };
    for (const [code, v] of this.byCode) if (v.count > top.count) top = { code, ...v };
    this.stopped = {
      failed: this.failed,
      total: this.total,
      rate: this.failed / this.total,
      topCode: top.code,
      topMessage: top.message,
      topCount: top.count,
    };
  }
}
