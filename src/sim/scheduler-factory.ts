// Builds the one scheduler of a simulated process from the profile and the served (possibly
// drifted) configuration: the fixed-timing scheduler or the roofline one with the flavour's step log.

import { FixedScheduler } from './fixed-scheduler.js';
import type { StepLogger } from './flavor.js';
import type { ModelConfig } from './perf-model.js';
import type { SimProfile } from './profiles.js';
import type { Scheduler } from './request.js';
import { RooflineScheduler } from './roofline-scheduler.js';
import type { ServedConfig } from './served-config.js';

/** Model config the performance model uses. */
export function modelConfigOf(c: ServedConfig): ModelConfig {
  return {
    tpSize: c.tpSize,
    overlap: !c.disableOverlapSchedule,
    spec:
      c.specAlgorithm && c.specNumSteps && c.specNumDraftTokens
        ? { numSteps: c.specNumSteps, topk: c.specTopk ?? 1, numDraftTokens: c.specNumDraftTokens }
        : null,
  };
}

export interface SchedulerSetup {
  profile: SimProfile;
  served: ServedConfig;
  timeScale: number;
  /** crash-on-first-decode: runs before the first decode step; returning false stops the loop. */
  beforeFirstDecode?: () => boolean;
  stepLogger?: StepLogger;
}

export function createScheduler(s: SchedulerSetup): Scheduler {
  if (s.profile.kind === 'fixed') {
    return new FixedScheduler({
      ttftMs: s.profile.ttftMs,
      itlMs: s.profile.itlMs,
      tokensPerChunk: s.profile.tokensPerChunk,
      timeScale: s.timeScale,
      beforeFirstDecode: s.beforeFirstDecode,
    });
  }
  return new RooflineScheduler({
    profile: s.profile,
    model: modelConfigOf(s.served),
    maxRunningRequests: s.served.maxRunningRequests,
    kvCapacityTokens: s.served.maxTotalNumTokens,
    chunkedPrefillSize: s.served.chunkedPrefillSize,
    timeScale: s.timeScale,
    decodeLogInterval: s.served.decodeLogInterval,
    beforeFirstDecode: s.beforeFirstDecode,
    log: s.stepLogger ?? (() => {}),
  });
}
