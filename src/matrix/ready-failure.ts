// What each way a launched server can fail to become ready says to the user: its exit status, the
// crash line in its output, flapping health, the time limit, or nothing listening on the config's URL.

import type { ErrorCode } from '../core/errors.js';
import type { ResolvedConfig } from './config-plan.js';
import type { ReadyOutcome } from './wait-ready.js';

export interface NotReady {
  code: ErrorCode;
  message: string;
  evidence: string[];
}

/** The failure for a ready wait that did not end ready; `tail`: the server output's last lines. */
export function notReadyFailure(
  ready: Exclude<ReadyOutcome, { kind: 'ready' }>,
  config: ResolvedConfig,
  tail: string[],
): NotReady {
  const c = `config "${config.name}"`;
  switch (ready.kind) {
    case 'exited':
      return {
        code: 'BG_E_LAUNCH',
        message: `${c}: the server exited during start-up (${ready.signal ?? `exit status ${ready.code}`}) after ${ready.elapsedS.toFixed(1)} s.`,
        evidence: tail,
      };
    case 'crashed':
      return {
        code: 'BG_E_LAUNCH',
        message: `${c}: crash signature in the server output at line ${ready.line} while starting.`,
        evidence: ready.excerpt.split('\n'),
      };
    case 'flapping':
      return {
        code: 'BG_E_LAUNCH',
        message: `${c}: /health flapped between healthy and unhealthy ${ready.flips} times during start-up.`,
        evidence: tail,
      };
    case 'timeout':
      return {
        code: 'BG_E_LAUNCH',
        message: `${c}: expected /health to answer 200 within ${config.readyTimeoutS} s; last answer: ${ready.lastStatus}.`,
        evidence: tail,
      };
    case 'not-listening':
      return {
        code: 'BG_E_LAUNCH',
        message: `${c}: the server is running but nothing is listening at ${config.url} (connection refused for ${ready.refusedS.toFixed(0)} s) and its output has not changed for ${ready.quietS.toFixed(0)} s; check the port in launch.args against url.`,
        evidence: tail,
      };
    case 'aborted':
      return { code: 'BG_E_ABORTED', message: `${c}: interrupted while waiting for ready.`, evidence: [] };
  }
}
