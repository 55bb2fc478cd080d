// The shape of slo-search.json (one load.kind slo_search outcome), apart from its reader and writer
// (slo-search-file.ts) so the pure report module can name it without importing file I/O.

import type { SloAnswerInterval } from '../metrics/slo-answer-interval.js';

export const SLO_SEARCH_FILE = 'slo-search.json';
export const SLO_SEARCH_SCHEMA = 'benchgate.slo-search/1';

/** What a probe held and how its share was judged (absent in files written before probes carried it). */
export interface SloProbeEvidenceRecord {
  /** requests/s (open loop) or requests in flight (closed loop). */
  unit: 'req/s' | 'concurrency';
  /** Offered and achieved over the probe's steady window. */
  offered: number;
  achieved: number;
  /** achieved ≥ tolerance × offered. */
  sustained: boolean;
  steady: { windowS: number; rampUpS: number; drainS: number } | null;
  /** Requests judged (the steady window's), those meeting every SLO, and the sample floor of the share (null: no count can show a share of 100%). */
  samples: number;
  met: number;
  floor: number | null;
  /** Measured requests the probe sent. */
  sent: number;
}

export interface SloSearchProbeRecord {
  /** The nominal load asked for. */
  value: number;
  /** The load it offered, which the bracket is kept on (absent in older files: the nominal value was). */
  offered?: number;
  /** Share of the probe's judged requests meeting every SLO (0–1). */
  share: number;
  passed: boolean;
  /** pass, fail, or inconclusive (too few samples); absent in older files (then passed decides). */
  outcome?: 'pass' | 'fail' | 'inconclusive';
  /** Why, in words (held load, share with its sample count). */
  reason?: string;
  /** True when the probe repeated a load to settle a non-monotonic pair. */
  repeat?: boolean;
  evidence?: SloProbeEvidenceRecord;
}

export interface SloSearchRecord {
  schema?: typeof SLO_SEARCH_SCHEMA;
  over: 'rate' | 'concurrency';
  requiredShare: number;
  slo: { ttft_ms?: number; tpot_ms?: number; e2e_ms?: number };
  preset: string | null;
  precision: number;
  /** Highest offered load that passed; null when even the lowest probed failed. */
  best: number | null;
  /** Lowest offered load that failed; null when the search's max passed. */
  firstFail: number | null;
  /** The answer's nominal load was probed twice and passed both times (absent in older files). */
  confirmed?: boolean;
  /** The answer's 95% interval over every probe (metrics/slo-answer-interval.ts; absent in older files). */
  interval?: SloAnswerInterval;
  probes: SloSearchProbeRecord[];
  /** Loads that failed below a load that passed; both ends were probed again (absent in older files). */
  nonMonotonic?: { failedAt: number; passedAt: number }[];
  /** Share of the offered load a probe had to achieve (absent in older files, which never checked it). */
  tolerance?: number;
  /** stalled: asking for another load no longer changed the load offered (absent before this reason). */
  stoppedBy: 'precision' | 'max-passed' | 'min-failed' | 'max-probes' | 'inconclusive' | 'stalled';
  /** True when the run was interrupted before the search ended (absent in files before this field). */
  interrupted?: boolean;
}
