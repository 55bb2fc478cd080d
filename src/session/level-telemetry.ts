// Everything a level records about the server besides its requests, started and stopped in one place so
// the level sweep only calls it: the /metrics time series (load/telemetry.ts → telemetry-level-NN.json,
// and each sample as it is scraped → telemetry-level-NN.live.jsonl for the live dashboard),
// nvidia-smi on the target's host (gpu-telemetry.ts → gpu-level-NN.json, the power behind
// energyPerTokenJ), and the prefix-cache counters read at the measured phase's start and the level's end
// (vLLM reports hits only as counters). Nothing here can fail a level: what could not be read is said once.

import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isThisMachine } from '../checkpoint/context.js';
import type { ClockAnchor } from '../core/clock.js';
import type { EngineAdapter, TargetHttp } from '../engines/types.js';
import type { ProcessHost } from '../hosts/host.js';
import { openHost } from '../hosts/open-host.js';
import type { ProgressView } from '../load/progress.js';
import { readTelemetry, startTelemetry, type TelemetrySample } from '../load/telemetry.js';
import type { CacheCounterDelta } from '../metrics/cache-share.js';
import type { PowerInput } from '../metrics/energy.js';
import type { Plan } from '../plan/schema.js';
import { gpuFile, liveTelemetryFile, telemetryFile } from '../results/layout.js';
import { writeJsonAtomic } from '../results/run-store.js';
import { type GpuTelemetry, startGpuTelemetry } from './gpu-telemetry.js';

export interface LevelTelemetryContext {
  plan: Plan;
  url: string;
  http: TargetHttp;
  adapter: EngineAdapter;
  anchor: ClockAnchor;
  progress: ProgressView;
}

export interface LevelTelemetryResult {
  /** GPU power for energyPerTokenJ, or why there is none. */
  power: PowerInput;
  /** Prefix-cache counter deltas over the measured phase; null when the server exposes none. */
  prefixCounters: CacheCounterDelta | null;
}

export interface LevelProbe {
  /**
   * Call once warmup is drained, before the first measured send, and wait for it: the counters'
   * "before" is read then, so no measured request is counted in it, however slowly /metrics answers.
   */
  measuredStarted(): Promise<void>;
  /** Stops sampling, writes telemetry-level-NN.json and gpu-level-NN.json into `dir`. */
  stop(dir: string): Promise<LevelTelemetryResult>;
}

/** Why GPUs cannot be sampled for this target at all; null when they can be tried. */
function gpuHostProblem(plan: Plan, url: string): string | null {
  if (!plan.telemetry.gpus) return 'telemetry.gpus is false in the plan';
  if (plan.host === 'local' && !isThisMachine(url))
    return `${url} is not on this machine and host is "local" (set host: ssh://… to sample its GPUs)`;
  return null;
}

/** The server's prefix-cache counters now, or null when it exposes none (or did not answer). */
async function readCacheCounters(
  c: LevelTelemetryContext,
): Promise<{ hits: number; queries: number; source: string } | null> {
  const hitNames = c.adapter.telemetrySeries?.prefixCacheHitTokens;
  const queryNames = c.adapter.telemetrySeries?.prefixCacheQueryTokens;
  if (!hitNames || !queryNames) return null;
  const doc = await c.http.request('/metrics', { timeoutMs: 5000 });
  if (doc.status !== 200 || doc.error) return null;
  const r = readTelemetry(doc.text, { prefixCacheHitTokens: hitNames, prefixCacheQueryTokens: queryNames });
  const hits = r.values.prefixCacheHitTokens;
  const queries = r.values.prefixCacheQueryTokens;
  if (typeof hits !== 'number' || typeof queries !== 'number') return null;
  return { hits, queries, source: `${r.sources.prefixCacheHitTokens} / ${r.sources.prefixCacheQueryTokens}` };
}

/** Appends each sample of level `li` to its live file in `dir` (the dashboard reads it while the level runs). */
function liveAppender(dir: string, li: number): (s: TelemetrySample) => void {
  const path = join(dir, liveTelemetryFile(li));
  return (s) => appendFileSync(path, `${JSON.stringify(s)}\n`);
}

/** The level telemetry of one session (it notes a missing nvidia-smi once, not every level). */
export function levelTelemetry(c: LevelTelemetryContext): {
  start(levelIndex: number, dir: string): Promise<LevelProbe>;
} {
  const intervalMs = c.plan.telemetry.interval_ms;
  let gpuProblem = gpuHostProblem(c.plan, c.url);
  let noted = false;
  const readCounters = () => readCacheCounters(c);
  return {
    async start(li, runDir) {
      let before = readCounters();
      const server = startTelemetry(c.http, c.adapter, c.anchor.monoMs, intervalMs, liveAppender(runDir, li));
      let host: ProcessHost | null = null;
      let gpu: { stop(): Promise<GpuTelemetry> } | null = null;
      if (gpuProblem === null) {
        host = await openHost(c.plan.host);
        gpu = await startGpuTelemetry(host, c.anchor.monoMs, intervalMs);
      }
      let measuredSeen = false;
      return {
        async measuredStarted() {
          if (measuredSeen) return;
          measuredSeen = true;
          before = readCounters();
          await before.catch(() => null);
        },
        async stop(dir) {
          if (server) {
            writeJsonAtomic(join(dir, telemetryFile(li)), await server.stop());
            rmSync(join(runDir, liveTelemetryFile(li)), { force: true });
          }
          let power: PowerInput;
          if (gpu) {
            const g = await gpu.stop();
            await host?.close().catch(() => undefined);
            // a host with no nvidia-smi at all gets no file (the summary's energy.reason says why)
            const absent = !g.available && /could not be started/.test(g.reason ?? '');
            if (!absent) writeJsonAtomic(join(dir, gpuFile(li)), { levelIndex: li, ...g });
            power = g.available ? { samples: g.samples } : { reason: g.reason ?? 'no GPU samples' };
            // nvidia-smi absent or without GPUs: the same next level, so it is not started again
            if (!g.available && /could not be started|found no GPU/.test(g.reason ?? ''))
              gpuProblem = g.reason;
          } else {
            power = { reason: gpuProblem ?? 'no GPU telemetry' };
          }
          if ('reason' in power && !noted) {
            noted = true;
            c.progress.note(`benchgate: no GPU telemetry (energy per token unknown): ${power.reason}.`);
          }
          const [b, a] = await Promise.all([before.catch(() => null), readCounters().catch(() => null)]);
          const prefixCounters =
            a && b
              ? { hitTokens: a.hits - b.hits, queryTokens: a.queries - b.queries, source: a.source }
              : null;
          return { power, prefixCounters };
        },
      };
    },
  };
}
