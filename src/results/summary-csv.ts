// summary.csv: one row per level with the headline figures, for spreadsheets and quick diffs.
// Columns are stable for a given percentile list (documented in docs/results-format.md).

import type { Distribution, LevelSummary } from '../metrics/summary.js';

const DISTS = [
  'ttftMs',
  'ttftContentMs',
  'chunkItlMs',
  'tokenItlMs',
  'tpotMs',
  'e2eMs',
  'e2eInclQueueMs',
  'queueWaitMs',
] as const;

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(Math.round(v * 1000) / 1000) : '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function summaryCsv(levels: LevelSummary[], percentiles: number[]): string {
  const pKeys = percentiles.map((p) => `p${p}`);
  const header = [
    'level_index',
    'kind',
    'value',
    'max_concurrency',
    'window_s',
    'completed',
    'failed',
    'warmup',
    'in_flight_at_end',
    'requests_per_s',
    'input_tokens_per_s',
    'output_tokens_per_s',
    'total_tokens_per_s',
    'peak_output_tokens_per_s',
    'achieved_concurrency',
    'goodput_requests_per_s',
    'acceptance_length',
    'client_limited',
    'valid',
  ];
  for (const d of DISTS) for (const k of ['mean', ...pKeys]) header.push(`${d}_${k}`);
  const rows = [header.join(',')];
  for (const l of levels) {
    const row: unknown[] = [
      l.levelIndex,
      l.level.kind,
      l.level.value,
      l.level.maxConcurrency ?? null,
      l.windowS,
      l.requests.completed,
      l.requests.failed,
      l.requests.warmup,
      l.requests.inFlightAtEnd,
      l.throughput.requestsPerS,
      l.throughput.inputTokensPerS,
      l.throughput.outputTokensPerS,
      l.throughput.totalTokensPerS,
      l.throughput.peakOutputTokensPerS,
      l.achievedConcurrency,
      l.goodput?.requestsPerS ?? null,
      l.speculative?.acceptanceLength ?? null,
      l.client.clientLimited,
      l.validity.valid,
    ];
    for (const d of DISTS) {
      const dist = l[d] as Distribution | null;
      row.push(dist?.mean ?? null);
      for (const k of pKeys) row.push(dist?.percentiles[k] ?? null);
    }
    rows.push(row.map(cell).join(','));
  }
  return `${rows.join('\n')}\n`;
}
