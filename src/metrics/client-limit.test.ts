import { describe, expect, it } from 'vitest';
import {
  CPU_PERCENT_OF_ONE_CORE_LIMIT,
  EVENT_LOOP_DELAY_P99_LIMIT_MS,
  judgeClientLimit,
} from './client-limit.js';

describe('judgeClientLimit', () => {
  it('does not flag a client within both thresholds, including exactly at them', () => {
    expect(
      judgeClientLimit({
        eventLoopDelayP99Ms: EVENT_LOOP_DELAY_P99_LIMIT_MS,
        cpuPercentOfOneCore: CPU_PERCENT_OF_ONE_CORE_LIMIT,
      }),
    ).toEqual({ clientLimited: false });
  });

  it('flags a lagging event loop of a busy client and says by how much', () => {
    const v = judgeClientLimit({ eventLoopDelayP99Ms: 35.25, cpuPercentOfOneCore: 60 });
    expect(v.clientLimited).toBe(true);
    expect(v.reason).toBe('event-loop lag p99 35.3 ms > 10 ms');
  });

  it('calls lag with an idle client timing noise from the host, not a client limit', () => {
    const v = judgeClientLimit({ eventLoopDelayP99Ms: 35.25, cpuPercentOfOneCore: 12 });
    expect(v.clientLimited).toBe(false);
    expect(v.timingNoise).toContain('event-loop lag p99 35.3 ms > 10 ms with client CPU only 12%');
  });

  it('flags a saturated core and reports both reasons when both apply', () => {
    expect(judgeClientLimit({ eventLoopDelayP99Ms: null, cpuPercentOfOneCore: 97 }).reason).toBe(
      'client CPU 97% of one core > 90%',
    );
    expect(judgeClientLimit({ eventLoopDelayP99Ms: 50, cpuPercentOfOneCore: 97 }).reason).toContain(
      '; client CPU',
    );
  });

  it('never flags on unknown readings', () => {
    expect(judgeClientLimit({ eventLoopDelayP99Ms: null, cpuPercentOfOneCore: null }).clientLimited).toBe(
      false,
    );
  });
});
