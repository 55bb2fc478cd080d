// The terminal table printed after `benchgate bench`: one row per level with its verdict from the run's
// one validity judgement (results/run-validity.ts, as every report reads it), the headline figures,
// the share of prompt tokens served from the prefix cache, and flags (client-limited, invalid), then
// why each level that is not valid is not. A
// percentile the samples cannot support reads n/a, as in every report (metrics/tail-samples.ts).
// Pure text; colour is the caller's choice.

import type { Distribution, LevelSummary, RunSummary } from '../metrics/summary.js';
import { minSamplesFor, supportedPercentile } from '../metrics/tail-samples.js';
import type { Validity } from '../metrics/validity.js';
import { levelId } from '../records/level-key.js';
import type { RunValidity } from './run-validity.js';

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

/** The level's verdict from the run's one judgement (else the level's stored one): never judged here. */
function verdictOf(l: LevelSummary, validity: RunValidity | null): Validity | null {
  return validity?.levels[levelId(l.level)] ?? l.judgement ?? null;
}

/** Below the table: the run's verdict and, for each level that is not valid, why (notes left out). */
function validityLines(summary: RunSummary, validity: RunValidity | null): string[] {
  if (!validity) return [];
  const out = [`validity: ${validity.status.toUpperCase()}`];
  for (const r of validity.reasons.filter((x) => x.severity !== 'note' && x.check !== 'levels'))
    out.push(`  ${r.text}`);
  const seen = new Set<string>();
  for (const l of summary.levels) {
    const id = levelId(l.level);
    const v = validity.levels[id];
    if (seen.has(id) || !v || v.status === 'valid') continue;
    seen.add(id);
    const why = v.reasons.filter((r) => r.severity !== 'note').map((r) => r.text);
    out.push(`  ${v.label}: ${v.status.toUpperCase()}: ${why.join(' ')}`);
  }
  return out;
}

export function levelTable(summary: RunSummary, validity: RunValidity | null = null): string {
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
    'validity',
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
      (verdictOf(l, validity)?.status ?? (l.validity.valid ? '?' : 'invalid')).toUpperCase(),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 0 || i >= r.length - 2 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
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
  out.push(...validityLines(summary, validity));
  return `${out.join('\n')}\n`;
}
