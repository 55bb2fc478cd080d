// The one place that decides whether the benchmark client itself was the bottleneck of a level.
// A client whose event loop lags or whose core is saturated delays timestamps and sends: its
// numbers describe the client, not the server, so such levels are flagged and kept out of verdicts.

/** Event-loop delay p99 above this means chunk timestamps were taken late by up to this much. */
export const EVENT_LOOP_DELAY_P99_LIMIT_MS = 20;
/** Process CPU above this share of one core means the (single-threaded) client had no headroom. */
export const CPU_PERCENT_OF_ONE_CORE_LIMIT = 90;

export interface ClientSelfCheck {
  eventLoopDelayP99Ms: number | null;
  cpuPercentOfOneCore: number | null;
}

export interface ClientLimitVerdict {
  clientLimited: boolean;
  /** Why, with the measured figure and the threshold; absent when not limited. */
  reason?: string;
}

/** Limited when either reading exceeds its threshold (strictly); unknown readings never flag. */
export function judgeClientLimit(check: ClientSelfCheck): ClientLimitVerdict {
  const reasons: string[] = [];
  const lag = check.eventLoopDelayP99Ms;
  if (lag !== null && lag > EVENT_LOOP_DELAY_P99_LIMIT_MS) {
    reasons.push(`event-loop delay p99 ${lag.toFixed(1)} ms > ${EVENT_LOOP_DELAY_P99_LIMIT_MS} ms`);
  }
  const cpu = check.cpuPercentOfOneCore;
  if (cpu !== null && cpu > CPU_PERCENT_OF_ONE_CORE_LIMIT) {
    reasons.push(`client CPU ${cpu.toFixed(0)}% of one core > ${CPU_PERCENT_OF_ONE_CORE_LIMIT}%`);
  }
  return reasons.length === 0
    ? { clientLimited: false }
    : { clientLimited: true, reason: reasons.join('; ') };
}
