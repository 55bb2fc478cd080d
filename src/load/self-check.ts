// The client watching itself during a level: event-loop delay (perf_hooks histogram) and process CPU
// as a share of one core, so levels where benchgate was the bottleneck can be flagged.

import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

export interface SelfCheckReading {
  eventLoopDelayP99Ms: number | null;
  cpuPercentOfOneCore: number | null;
}

export interface SelfCheck {
  stop(): SelfCheckReading;
}

export function startSelfCheck(): SelfCheck {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  return {
    stop() {
      h.disable();
      const cpu = process.cpuUsage(cpu0);
      const wallMs = performance.now() - t0;
      const p99 = h.count > 0 ? h.percentile(99) / 1e6 : null;
      return {
        eventLoopDelayP99Ms: p99,
        cpuPercentOfOneCore: wallMs > 0 ? ((cpu.user + cpu.system) / 1000 / wallMs) * 100 : null,
      };
    },
  };
}
