// Terminal rendering of a Comparison: the validity headline and the one-screen summary first, then the
// validity details, verdicts, one aligned table per metric (for one run, one table of metrics by level)
// and the sections. Colour only when asked
// (TTY and no NO_COLOR); the plain form is what pipes and CI logs get.

import { createColors } from 'picocolors';
import { CACHE_TITLE, cacheLines } from './cache-section.js';
import { isEngineNativeKey } from './comparability.js';
import { losslessTextLines } from './lossless-section.js';
import { multiTurnTextLines } from './multi-turn-section.js';
import { singleRunTable } from './single-run-table.js';
import { sloSearchTextLines } from './slo-search-section.js';
import { STEADY_HEADER, STEADY_TITLE, steadyTable } from './steady-model.js';
import {
  bootstrapNote,
  exclusionNote,
  flagReasons,
  type MetricTable,
  metricTables,
  type TableCell,
} from './table-model.js';
import { telemetryTextLines } from './telemetry-section.js';
import type { Comparison } from './types.js';
import { validitySection } from './validity-model.js';

export interface TextOptions {
  color: boolean;
}

type Colors = ReturnType<typeof createColors>;

/** Validity headline, the summary, then the validity reasons and the levels with anything to say. */
function openingLines(cmp: Comparison, c: Colors): string[] {
  const vs = validitySection(cmp);
  const paint = (st: string, t: string) =>
    st === 'invalid' ? c.red(c.bold(t)) : st === 'suspect' ? c.yellow(t) : c.green(t);
  return [
    paint(vs.status, vs.headline),
    ...cmp.summary.map((s) => `  * ${s}`),
    ...(cmp.summary.length ? [c.dim('  Details:')] : []),
    ...vs.reasons.map((r) => `  - ${r}`),
    ...vs.levels.map((l) => paint(l.status, `  - ${l.text}`)),
    '',
  ];
}

function runLines(cmp: Comparison, c: Colors): string[] {
  const single = cmp.runs.length === 1;
  const out = [
    c.bold(
      single
        ? `Report of run ${cmp.baseline}`
        : `Comparison of ${cmp.runs.length} runs; baseline: ${cmp.baseline}`,
    ),
  ];
  for (const r of cmp.runs) {
    const trials = r.trials > 1 ? `${r.trials} trials` : null;
    const bits = [r.source !== 'benchgate' ? `imported from ${r.source}` : null, r.engine, r.model, trials];
    const shown = bits.filter(Boolean);
    out.push(`  ${r.name}${shown.length ? ` (${shown.join(', ')})` : ''}  ${c.dim(r.dir)}`);
    for (const w of r.warnings) out.push(c.yellow(`    note: ${w}`));
  }
  return [...out, ''];
}

function verdictLines(cmp: Comparison, c: Colors): string[] {
  const out: string[] = [];
  if (cmp.runs.length > 1) {
    out.push(c.bold('Verdicts'));
    const excluded = exclusionNote(cmp);
    if (excluded) out.push(c.yellow(`  ${excluded}`));
    for (const [i, v] of cmp.verdicts.entries()) out.push(`  ${i + 1}. ${v.text}`);
  }
  if (cmp.crossovers.length) {
    // the terminal shows the headline metric's crossovers; every metric's are in markdown, JSON and HTML
    const headline = cmp.crossovers[0].metric;
    const shown = cmp.crossovers.filter((x) => x.metric === 'output_throughput' || x.metric === headline);
    out.push('', c.bold('Crossovers'));
    for (const x of shown) out.push(`  - ${x.text}`);
    const more = cmp.crossovers.length - shown.length;
    if (more > 0) out.push(c.dim(`  (${more} more on latency metrics: --format markdown, json or html)`));
  }
  return out;
}

type Table = Pick<MetricTable, 'title' | 'header' | 'rows'>;

function tableLines(t: Table, c: Colors): string[] {
  const tone = (cell: TableCell) =>
    cell.tone === 'better'
      ? c.green(cell.text)
      : cell.tone === 'worse'
        ? c.red(cell.text)
        : cell.tone === 'muted'
          ? c.dim(cell.text)
          : cell.text;
  const widths = t.header.map((h, i) => Math.max(h.length, ...t.rows.map((r) => r[i].text.length)));
  return [
    '',
    c.bold(t.title),
    t.header
      .map((h, i) => h.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...t.rows.map((r) =>
      r
        .map((cell, i) => tone({ ...cell, text: cell.text.padEnd(widths[i]) }))
        .join('  ')
        .trimEnd(),
    ),
  ];
}

/** One run: one table of metrics by level, its footnotes dimmed under it. */
function singleRunLines(cmp: Comparison, c: Colors): string[] {
  const { table, notes } = singleRunTable(cmp);
  return [...tableLines(table, c), ...notes.map((n) => c.dim(n))];
}

function steadyAsTable(cmp: Comparison): Table[] {
  if (!cmp.steadyState.length) return [];
  const rows = steadyTable(cmp).map((r) => r.map((text) => ({ text, tone: 'neutral' as const })));
  return [{ title: STEADY_TITLE, header: STEADY_HEADER, rows }];
}

function closingLines(cmp: Comparison, c: Colors): string[] {
  const out: string[] = [];
  if (cmp.runs.length > 1) out.push('', c.dim(bootstrapNote(cmp)));
  const expected = cmp.configDiff.filter((d) => d.expected);
  if (expected.length) {
    // normalised keys name what varied; engine-native duplicates of them are only counted here
    const keys = [...new Set(expected.map((d) => d.key))];
    const shared = keys.filter((k) => !isEngineNativeKey(k));
    const nativeCount = keys.length - shared.length;
    out.push(
      c.dim(
        `Varied on purpose: ${(shared.length ? shared : keys).join(', ')}${shared.length && nativeCount ? ` (+${nativeCount} engine-native keys)` : ''}; per-run values in --format json or html.`,
      ),
    );
  }
  return out;
}

export function renderText(cmp: Comparison, opts: TextOptions): string {
  const c = createColors(opts.color);
  const single = cmp.runs.length === 1;
  const slo = sloSearchTextLines(cmp.sloSearch);
  const reasons = flagReasons(cmp);
  const cache = cacheLines(cmp.cache, single);
  const out = [
    ...openingLines(cmp, c),
    ...runLines(cmp, c),
    ...(slo.length ? [...slo, ...(single ? [] : [''])] : []),
    ...verdictLines(cmp, c),
    ...(single ? singleRunLines(cmp, c) : metricTables(cmp).flatMap((t) => tableLines(t, c))),
    ...steadyAsTable(cmp).flatMap((t) => tableLines(t, c)),
    ...(reasons.length ? ['', c.bold('Flagged levels'), ...reasons.map((r) => c.yellow(`  ${r}`))] : []),
    ...(cache.length ? ['', c.bold(CACHE_TITLE), ...cache.map((l) => `  ${l}`)] : []),
    ...multiTurnTextLines(cmp),
    ...losslessTextLines(cmp.lossless),
    ...telemetryTextLines(cmp.telemetry),
    ...closingLines(cmp, c),
  ];
  return `${out.join('\n')}\n`;
}
