// Turns the raw request records of one load level into its LevelSummary. Pure: no I/O, no clock.
// Definitions of every metric and of the measured window live in src/metrics/README-level (header below).

import type { RequestRecord } from '../client/record.js';
import type { SpecCounters } from '../engines/types.js';
import type { LevelKey, LevelSummary, SloSpec } from './summary.js';

export interface LevelInput {
  levelIndex: number;
  level: LevelKey;
  /** All records of the level, including warmup and failed ones. */
  records: RequestRecord[];
  /** e.g. [50, 90, 95, 99]. */
  percentiles: number[];
  slo: SloSpec;
  inFlightAtEnd: number;
  specCounters?: { before: SpecCounters | null; after: SpecCounters | null };
  client?: { eventLoopDelayP99Ms: number | null; cpuPercentOfOneCore: number | null };
  validity?: { valid: boolean; reasons: string[] };
}

export function summarizeLevel(input: LevelInput): LevelSummary {
  void input;
  throw new Error('summarizeLevel: not implemented yet');
}
