// The shape of slo-search.json (one load.kind slo_search outcome), apart from its reader and writer
// (slo-search-file.ts) so the pure report module can name it without importing file I/O.

export const SLO_SEARCH_FILE = 'slo-search.json';
export const SLO_SEARCH_SCHEMA = 'benchgate.slo-search/1';

export interface SloSearchProbeRecord {
  value: number;
  /** Share of the probe's measured requests meeting every SLO (0–1). */
  share: number;
  passed: boolean;
}

export interface SloSearchRecord {
  schema?: typeof SLO_SEARCH_SCHEMA;
  over: 'rate' | 'concurrency';
  requiredShare: number;
  slo: { ttft_ms?: number; tpot_ms?: number; e2e_ms?: number };
  preset: string | null;
  precision: number;
  /** Highest value that passed; null when even the lowest probed failed. */
  best: number | null;
  /** Lowest value that failed; null when the search's max passed. */
  firstFail: number | null;
  probes: SloSearchProbeRecord[];
  stoppedBy: 'precision' | 'max-passed' | 'min-failed' | 'max-probes';
  /** True when the run was interrupted before the search ended (absent in files before this field). */
  interrupted?: boolean;
}
