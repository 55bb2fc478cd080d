// The one place that decides whether the benchmark client itself was the bottleneck of a level.
// A client whose core is saturated delays sends and timestamps: its numbers describe the client, not
// the server, so such levels are flagged `client_limited` and kept out of verdicts.
// A lagging event loop while the client's own CPU is low means the *host* (other processes on a shared
// machine) delayed the client: timestamps may be late by up to the lag, so the level carries a
// `timing_noise` note, but its throughput is still the server's and it stays in verdicts.

/**
 * Event-loop lag p99 above this (real lag: the histogram's sampling interval already subtracted, see
 * load/self-check.ts) means chunk timestamps were taken late by up to this much. 10 ms of real lag is
 * what the former 20 ms limit on the raw reading (lag + the 10 ms interval) stood for.
 */
export const EVENT_LOOP_DELAY_P99_LIMIT_MS = 10;
/** Process CPU above this share of one core means the (single-threaded) client had no headroom. */
export const CPU_PERCENT_OF_ONE_CORE_LIMIT = 90;
/** With a lagging loop, client CPU above this share means the client's own work caused the lag. */
export const CPU_PERCENT_BUSY_WITH_LAG = 50;

export interface ClientSelfCheck {
  eventLoopDelayP99Ms: number | null;
  cpuPercentOfOneCore: number | null;
}

export interface ClientLimitVerdict {
  clientLimited: boolean;
  /** Why, with the measured figure and the threshold; absent when not limited. */
  reason?: string;
  /** Set when the loop lagged but the client was not busy: timestamps are noisy, not client-bound. */
  timingNoise?: string;
}

/** Unknown readings never flag; thresholds are strict (a reading equal to a limit does not flag). */
export function judgeClientLimit(check: ClientSelfCheck): ClientLimitVerdict {
  const lag = check.eventLoopDelayP99Ms;
  const cpu = check.cpuPercentOfOneCore;
  const lagging = lag !== null && lag > EVENT_LOOP_DELAY_P99_LIMIT_MS;
  const saturated = cpu !== null && cpu > CPU_PERCENT_OF_ONE_CORE_LIMIT;
  const busy = cpu === null || cpu > CPU_PERCENT_BUSY_WITH_LAG;
  const lagText = lagging
    ? `event-loop lag p99 ${lag.toFixed(1)} ms > ${EVENT_LOOP_DELAY_P99_LIMIT_MS} ms`
    : '';
  const reasons: string[] = [];
  if (lagging && busy) reasons.push(lagText);
  if (saturated)
    reasons.push(`client CPU ${cpu.toFixed(0)}% of one core > ${CPU_PERCENT_OF_ONE_CORE_LIMIT}%`);
  if (reasons.length > 0) return { clientLimited: true, reason: reasons.join('; ') };
  if (lagging) {
    return {
      clientLimited: false,
      timingNoise: `${lagText} with client CPU only ${cpu!.toFixed(0)}%: the host delayed the client; latency tails may read up to ${lag.toFixed(0)} ms high`,
    };
  }
  return { clientLimited: false };
}
