// Before any load: does a level ask more of benchgate's client than `benchgate calibrate` measured it
// can drive on this machine? Each such level gets a warning on stderr and a note in the run's manifest,
// so a number produced past the client's capacity is never quoted as the server's.

import { availableParallelism } from 'node:os';
import { resolveWorkerCount } from '../load/worker-pool.js';
import type { Plan } from '../plan/schema.js';
import { type Calibration, defaultCalibrationPath, readCalibration } from './calibration-file.js';

/** Expected output tokens per request of a length distribution (its mean). */
function meanOutputTokens(len: Plan['workload']['output_tokens']): number {
  if ('fixed' in len) return len.fixed;
  if ('uniform' in len) return (len.uniform[0] + len.uniform[1]) / 2;
  return len.normal.mean;
}

const round = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toPrecision(3));

/**
 * The levels of `plan` whose demand exceeds `c`, one sentence each. Pure. The calibration is per core
 * (one event loop); with `workers` worker threads each carries its share of a level, so a level is
 * judged by that share (`workers` is the resolved count, capped by the caller at the cores there are).
 */
export function overCapacityLevels(plan: Plan, c: Calibration, workers = 1): string[] {
  const notes: string[] = [];
  // an SLO search chooses its probe levels as it goes: there is no fixed level to check beforehand
  if (plan.load.kind === 'slo_search') return notes;
  const when = `(calibrated ${c.createdAt.slice(0, 10)})`;
  const over = workers > 1 ? ` over ${workers} workers` : '';
  const per = workers > 1 ? ` per core, ×${workers} workers` : ' per core';
  const largest = Math.max(...c.levels.map((l) => l.concurrency));
  for (const value of plan.load.levels) {
    const share = value / workers;
    if (plan.load.kind === 'rate') {
      const tokensPerS = value * meanOutputTokens(plan.workload.output_tokens);
      if (tokensPerS / workers > c.capacity.tokensPerS)
        notes.push(
          `rate ${value} req/s asks for about ${round(tokensPerS)} streamed tokens/s${over}, above the client's calibrated ${round(c.capacity.tokensPerS)} tokens/s${per} ${when}`,
        );
      else if (share > c.capacity.requestsPerS)
        notes.push(
          `rate ${value} req/s${over} is above the client's calibrated ${round(c.capacity.requestsPerS)} requests/s${per} ${when}`,
        );
    } else if (c.firstStalledConcurrency !== null && share >= c.firstStalledConcurrency) {
      notes.push(
        `concurrency ${value}${over}: the client's event loop already stalled at concurrency ${c.firstStalledConcurrency} in calibration ${when}`,
      );
    } else if (share > largest) {
      notes.push(
        `concurrency ${value} is beyond the largest calibrated concurrency (${largest}), so the client's capacity there is not measured ${when}`,
      );
    }
  }
  return notes;
}

/** Warnings this process has written: a matrix opens a run store per level and per config, and each
 * sentence once is enough (8 identical lines in a two-config matrix said nothing more than one). */
const said = new Set<string>();

function warnOnce(line: string): void {
  if (said.has(line)) return;
  said.add(line);
  process.stderr.write(line);
}

/**
 * Reads the saved calibration (if any), warns on stderr for each over-capacity level (once per process)
 * and returns the manifest field. No calibration file: nothing to say. An unreadable one is reported,
 * never ignored.
 */
export function capacityCheck(
  plan: Plan,
  path: string = defaultCalibrationPath(),
  cores: number = availableParallelism(),
): { capacityNotes?: string[] } {
  const read = readCalibration(path);
  if (read.kind === 'absent') return {};
  const notes =
    read.kind === 'unreadable'
      ? [`the client calibration could not be read, so no level was checked against it: ${read.reason}`]
      : overCapacityLevels(
          plan,
          read.calibration,
          Math.min(cores, resolveWorkerCount(plan.load.workers, cores)),
        ).map((n) => `${n}; its figures may measure the client, not the server`);
  for (const n of notes) warnOnce(`benchgate: warning: ${n}.\n`);
  return { capacityNotes: notes };
}
