// Why a level ends the way it does: its error rate passed load.error_stop (the level is invalid; the run
// goes on unless no request succeeded), or the drift check after it found a server that no longer passes
// the checkpoint (the run ends). Both can happen to one level; the failed re-check then decides, so an
// error-rate stop can never hide it and send the next level to a server running the wrong configuration.

import type { ErrorStop } from '../load/failure-policy.js';
import type { ProgressView } from '../load/progress.js';
import type { LevelStop, LevelValidity } from './session-types.js';

function driftStop(level: string, why: string): LevelStop {
  return {
    code: 'BG_E_CHECK_FAILED',
    endsRun: true,
    message: `the server drifted during level ${level} and ${why}; later levels are not run`,
  };
}

function errorRateStop(level: string, s: ErrorStop, threshold: number): LevelStop {
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const serverDead = s.failed === s.total;
  return {
    code: 'BG_E_LEVEL_ERROR_RATE',
    endsRun: serverDead,
    message:
      `level ${level} stopped: ${s.failed} of ${s.total} requests failed (${pct(s.rate)}, above the ${pct(threshold)} of load.error_stop.rate); ` +
      `most common: ${s.topCode} ×${s.topCount} (${s.topMessage.slice(0, 200)}); the records so far are kept and the level is invalid` +
      (serverDead
        ? '; no request succeeded, so the server is taken as dead and later levels are not run'
        : ''),
  };
}

/**
 * The level's stop, if any, with `validity` updated in place (invalid; an error-rate stop adds its own
 * reason, a drift's reasons are already there) and each stop noted once.
 */
export function judgeLevelStop(o: {
  level: string;
  errorStop: ErrorStop | null;
  threshold: number;
  validity: LevelValidity;
  progress: ProgressView;
}): LevelStop | null {
  const rate = o.errorStop ? errorRateStop(o.level, o.errorStop, o.threshold) : null;
  const drift = o.validity.endRun ? driftStop(o.level, o.validity.endRun) : null;
  for (const stop of [rate, drift]) {
    if (!stop) continue;
    o.validity.valid = false;
    // a drift's reasons are already the level's; an error-rate stop adds its own
    if (stop === rate) o.validity.reasons.push(stop.message);
    o.progress.note(`benchgate: ${stop.message} [${stop.code}]`);
  }
  // the failed re-check ends the run even when the level also stopped on its error rate
  return drift ?? rate;
}
