// Server telemetry during a level: scrapes the engine's /metrics on an interval and keeps the series
// its adapter names (running and waiting requests, KV-cache usage, prefix-cache and speculative
// figures, preemptions) as a time series. Scrapes that fail are counted, not hidden; a series the
// server does not expose is null in every sample.

import { performance } from 'node:perf_hooks';
import { parsePrometheusText } from '../engines/prometheus.js';
import type { EngineAdapter, TargetHttp, TelemetryKey } from '../engines/types.js';

export interface TelemetrySample {
  /** ms since the run's monotonic anchor. */
  tMs: number;
  values: Partial<Record<TelemetryKey, number | null>>;
}

export interface TelemetrySeries {
  intervalMs: number;
  /** The metric name read for each key (null: none of the adapter's spellings was exposed). */
  sources: Partial<Record<TelemetryKey, string | null>>;
  samples: TelemetrySample[];
  failedScrapes: number;
}

/** Values of the adapter's series in one /metrics text (sum over label sets of the first present name). */
export function readTelemetry(
  text: string,
  series: Partial<Record<TelemetryKey, string[]>>,
): { values: TelemetrySample['values']; sources: TelemetrySeries['sources'] } {
  const scrape = parsePrometheusText(text);
  const values: TelemetrySample['values'] = {};
  const sources: TelemetrySeries['sources'] = {};
  for (const [key, names] of Object.entries(series) as [TelemetryKey, string[]][]) {
    values[key] = null;
    sources[key] = null;
    for (const name of names) {
      const hits = scrape.samples.filter((s) => s.name === name);
      if (hits.length === 0) continue;
      values[key] = hits.reduce((a, s) => a + s.value, 0);
      sources[key] = name;
      break;
    }
  }
  return { values, sources };
}

/**
 * Starts sampling now; `stop()` ends it and returns the series. Null when the adapter names no series.
 * `onSample` sees each sample as it is taken (the live dashboard's file); what it throws is ignored.
 */
export function startTelemetry(
  http: TargetHttp,
  adapter: EngineAdapter,
  originMs: number,
  intervalMs = 1000,
  onSample?: (s: TelemetrySample) => void,
): { stop(): Promise<TelemetrySeries> } | null {
  const series = adapter.telemetrySeries;
  if (!series) return null;
  const out: TelemetrySeries = { intervalMs, sources: {}, samples: [], failedScrapes: 0 };
  let inFlight: Promise<void> = Promise.resolve();
  const scrape = async (): Promise<void> => {
    const t = performance.now() - originMs;
    const doc = await http.request('/metrics', { timeoutMs: Math.max(500, intervalMs) });
    if (doc.status !== 200 || doc.error) {
      out.failedScrapes++;
      return;
    }
    const r = readTelemetry(doc.text, series);
    out.sources = { ...r.sources, ...Object.fromEntries(Object.entries(out.sources).filter(([, v]) => v)) };
    const sample = { tMs: t, values: r.values };
    out.samples.push(sample);
    try {
      onSample?.(sample);
    } catch {
      // a live view that cannot be written never costs the level its telemetry
    }
  };
  const tick = (): void => {
    inFlight = inFlight.then(scrape);
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      tick(); // one last sample at the level's end
      await inFlight;
      return out;
    },
  };
}
