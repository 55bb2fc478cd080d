// summary.csv: one row per level with the headline figures, for spreadsheets and quick diffs.
// Columns are stable for a given percentile list (documented in docs/results-format.md). A percentile
// the level's samples cannot support is left empty and named in `withheld`, as every report does.

import type { Distribution, LevelSummary } from '../metrics/summary.js';
import { percentileOfKey, supportedPercentile, withheldNote } from '../metrics/tail-samples.js';

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
  header.push('trial', 'cached_share', 'cached_share_source', 'withheld');
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
    const withheld: string[] = [];
    for (const d of DISTS) {
      const dist = l[d] as Distribution | null;
      row.push(dist?.mean ?? null);
      const short: string[] = [];
      for (const k of pKeys) {
        const pct = percentileOfKey(k) ?? 0;
        row.push(supportedPercentile(dist, pct));
        if (withheldNote(dist, pct)) short.push(k);
      }
      if (short.length) withheld.push(`${d} ${short.join(', ')} n/a (${dist?.count ?? 0} samples)`);
    }
    row.push(l.trial ?? null, l.cache?.share ?? null, l.cache?.source ?? null, withheld.join('; ') || null);
    rows.push(row.map(cell).join(','));
  }
  return `${rows.join('\n')}\n`;
}
