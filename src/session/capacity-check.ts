// Before any load: does a level ask more of benchgate's client than `benchgate calibrate` measured it
// can drive on this machine? Each such level gets a warning on stderr and a note in the run's manifest,
// so a number produced past the client's capacity is never quoted as the server's.

import type { Plan } from '../plan/schema.js';
import { type Calibration, defaultCalibrationPath, readCalibration } from './calibration-file.js';

/** Expected output tokens per request of a length distribution (its mean). */
function meanOutputTokens(len: Plan['workload']['output_tokens']): number {
  if ('fixed' in len) return len.fixed;
  if ('uniform' in len) return (len.uniform[0] + len.uniform[1]) / 2;
  return len.normal.mean;
}

const round = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toPrecision(3));

/** The levels of `plan` whose demand exceeds `c`, one sentence each. Pure. */
export function overCapacityLevels(plan: Plan, c: Calibration): string[] {
  const notes: string[] = [];
  // an SLO search chooses its probe levels as it goes: there is no fixed level to check beforehand
  if (plan.load.kind === 'slo_search') return notes;
  const when = `(calibrated ${c.createdAt.slice(0, 10)})`;
  const largest = Math.max(...c.levels.map((l) => l.concurrency));
  for (const value of plan.load.levels) {
    if (plan.load.kind === 'rate') {
      const tokensPerS = value * meanOutputTokens(plan.workload.output_tokens);
      if (tokensPerS > c.capacity.tokensPerS)
        notes.push(
          `rate ${value} req/s asks for about ${round(tokensPerS)} streamed tokens/s, above the client's calibrated ${round(c.capacity.tokensPerS)} tokens/s per core ${when}`,
        );
      else if (value > c.capacity.requestsPerS)
        notes.push(
          `rate ${value} req/s is above the client's calibrated ${round(c.capacity.requestsPerS)} requests/s per core ${when}`,
        );
    } else if (c.firstStalledConcurrency !== null && value >= c.firstStalledConcurrency) {
      notes.push(
        `concurrency ${value}: the client's event loop already stalled at concurrency ${c.firstStalledConcurrency} in calibration ${when}`,
      );
    } else if (value > largest) {
      notes.push(
        `concurrency ${value} is beyond the largest calibrated concurrency (${largest}), so the client's capacity there is not measured ${when}`,
      );
    }
  }
  return notes;
}

/**
 * Reads the saved calibration (if any), warns on stderr for each over-capacity level and returns the
 * manifest field. No calibration file: nothing to say. An unreadable one is reported, never ignored.
 */
export function capacityCheck(
  plan: Plan,
  path: string = defaultCalibrationPath(),
): { capacityNotes?: string[] } {
  const read = readCalibration(path);
  if (read.kind === 'absent') return {};
  const notes =
    read.kind === 'unreadable'
      ? [`the client calibration could not be read, so no level was checked against it: ${read.reason}`]
      : overCapacityLevels(plan, read.calibration).map(
          (n) => `${n}; its figures may measure the client, not the server`,
        );
  for (const n of notes) process.stderr.write(`benchgate: warning: ${n}.\n`);
  return { capacityNotes: notes };
}
