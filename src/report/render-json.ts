// JSON rendering of a Comparison (schema "benchgate.compare/1"): the Comparison itself, minus the
// full per-level summaries that the series carry for charts (kept as the chart-relevant numbers only).

import { supportedPercentile } from '../metrics/tail-samples.js';
import type { Comparison } from './types.js';

export function renderJson(cmp: Comparison): string {
  const series = cmp.series.map((s) => ({
    run: s.run,
    points: s.points.map((p) => ({
      level: p.level,
      flags: p.flags,
      outputTokensPerS: p.summary.throughput.outputTokensPerS,
      // the tail rule as in every table: null (withheld) below the samples a percentile needs
      ttftP50Ms: supportedPercentile(p.summary.ttftMs, 50),
      ttftP99Ms: supportedPercentile(p.summary.ttftMs, 99),
      tpotP50Ms: supportedPercentile(p.summary.tpotMs, 50),
      acceptanceLength: p.summary.speculative?.acceptanceLength ?? null,
      energyPerTokenJ: p.summary.energyPerTokenJ ?? null,
    })),
  }));
  // Infinity/NaN are not JSON: JSON.stringify writes them as null
  // validity first: a reader of the file sees whether to trust it before any number
  // telemetry keeps its figures and lines; the chart points are for HTML only
  const telemetry = cmp.telemetry?.map(({ charts: _charts, ...row }) => row);
  const { validity, ...rest } = cmp;
  return `${JSON.stringify({ validity, ...rest, series, ...(telemetry ? { telemetry } : {}) }, null, 2)}\n`;
}
