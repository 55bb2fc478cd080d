// The terminal table printed after `benchgate bench`: one row per level with the headline figures,
// the share of prompt tokens served from the prefix cache, and flags (client-limited, invalid). A
// percentile the samples cannot support reads n/a, as in every report (metrics/tail-samples.ts).
// Pure text; colour is the caller's choice.

import type { Distribution, LevelSummary, RunSummary } from '../metrics/summary.js';
import { minSamplesFor, supportedPercentile } from '../metrics/tail-samples.js';

const f = (v: number | null | undefined, digits = 1): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits);

/** The percentile, or "n/a" when the level's samples cannot support it (and "-" when there is none). */
function p(d: Distribution | null, pct: number, digits = 1): string {
  if (!d || d.percentiles[`p${pct}`] === undefined) return '-';
  const v = supportedPercentile(d, pct);
  return v === null ? 'n/a' : f(v, digits);
}

function label(l: LevelSummary): string {
  const key =
    l.level.kind === 'concurrency'
      ? `c=${l.level.value}`
      : `${l.level.value}/s${l.level.maxConcurrency ? ` cap ${l.level.maxConcurrency}` : ''}`;
  return l.trial !== undefined ? `${key} #${l.trial}` : key;
}

/** Most chunk gaps were events read together: the ITL percentiles there read 0 and say nothing. */
const COALESCED_SHARE = 0.25;
const coalesced = (l: LevelSummary): boolean => (l.chunkItlZeroShare ?? 0) >= COALESCED_SHARE;

const cached = (l: LevelSummary): string =>
  !l.cache || l.cache.share === null ? '?' : `${(l.cache.share * 100).toFixed(0)}%`;

export function levelTable(summary: RunSummary): string {
  const head = [
    'level',
    'ok',
    'fail',
    'req/s',
    'out tok/s',
    'TTFT p50',
    'TTFT p99',
    'TPOT p50',
    'ITL p50',
    'E2E p50',
    'queue p99',
    'cached',
    'flags',
  ];
  const rows = summary.levels.map((l) => {
    const flags: string[] = [];
    if (l.client.clientLimited) flags.push(`client_limited (${l.client.reason ?? ''})`);
    if (l.client.timingNoise) flags.push('timing_noise (host contention)');
    if (!l.validity.valid) flags.push(`invalid: ${l.validity.reasons.join('; ')}`);
    if (l.requests.inFlightAtEnd > 0) flags.push(`${l.requests.inFlightAtEnd} in flight at end`);
    if (l.speculative) flags.push(`accept ${l.speculative.acceptanceLength.toFixed(2)}`);
    const errs = Object.entries(l.errorsByCode).map(([c, n]) => `${c}×${n}`);
    if (errs.length) flags.push(errs.join(' '));
    return [
      label(l),
      String(l.requests.completed),
      String(l.requests.failed),
      f(l.throughput.requestsPerS, 2),
      f(l.throughput.outputTokensPerS, 0),
      p(l.ttftMs, 50),
      p(l.ttftMs, 99),
      p(l.tpotMs, 50, 2),
      `${p(l.tokenItlMs, 50, 2)}${coalesced(l) ? '*' : ''}`,
      p(l.e2eMs, 50, 0),
      p(l.queueWaitMs, 99),
      cached(l),
      flags.join(', '),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 0 || i === r.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [line(head), ...rows.map(line)];
  const merged = summary.levels.filter(coalesced);
  if (merged.length)
    out.push(
      `* ITL: ${merged.map((l) => `${label(l)} ${Math.round((l.chunkItlZeroShare ?? 0) * 100)}%`).join(', ')} of chunk gaps were 0 ms: several streamed events reached the client in one read (sent together, or read late), so ITL percentiles there understate the time between tokens; read TPOT.`,
    );
  out.push(
    `(times in ms; ITL = token ITL; TPOT = (E2E − TTFT)/(tokens − 1); n/a: too few samples, p99 needs ${minSamplesFor(99)}; cached: prompt tokens served from the prefix cache, ? = not reported)`,
  );
  if (summary.incomplete) out.push(`run incomplete: ${summary.incomplete.reason}`);
  return `${out.join('\n')}\n`;
}
