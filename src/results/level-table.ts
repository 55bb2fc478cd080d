// The terminal table printed after `benchgate bench`: one row per level with the headline figures
// and flags (client-limited, invalid). Pure text; colour is the caller's choice.

import type { Distribution, LevelSummary, RunSummary } from '../metrics/summary.js';

const f = (v: number | null | undefined, digits = 1): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits);
const p = (d: Distribution | null, key: string): number | null => d?.percentiles[key] ?? null;

function label(l: LevelSummary): string {
  if (l.level.kind === 'concurrency') return `c=${l.level.value}`;
  return `${l.level.value}/s${l.level.maxConcurrency ? ` cap ${l.level.maxConcurrency}` : ''}`;
}

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
      f(p(l.ttftMs, 'p50')),
      f(p(l.ttftMs, 'p99')),
      f(p(l.tpotMs, 'p50'), 2),
      f(p(l.tokenItlMs, 'p50'), 2),
      f(p(l.e2eMs, 'p50'), 0),
      f(p(l.queueWaitMs, 'p99')),
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
  out.push('(times in ms; ITL = token ITL; TPOT = (E2E − TTFT)/(tokens − 1))');
  if (summary.incomplete) out.push(`run incomplete: ${summary.incomplete.reason}`);
  return `${out.join('\n')}\n`;
}
