// Terminal rendering of a Comparison: verdicts first, then one aligned table per metric.
// Colour only when asked (TTY and no NO_COLOR); the plain form is what pipes and CI logs get.

import { createColors } from 'picocolors';
import { isEngineNativeKey } from './comparability.js';
import { losslessTextLines } from './lossless-section.js';
import { multiTurnTextLines } from './multi-turn-section.js';
import { sloSearchTextLines } from './slo-search-section.js';
import { STEADY_HEADER, STEADY_TITLE, steadyTable } from './steady-model.js';
import { bootstrapNote, exclusionNote, flagReasons, metricTables, type TableCell } from './table-model.js';
import { telemetryTextLines } from './telemetry-section.js';
import type { Comparison } from './types.js';
import { validitySection } from './validity-model.js';

export interface TextOptions {
  color: boolean;
}

/** Colour decision for stdout: TTY, no NO_COLOR, not dumb. */

export function renderText(cmp: Comparison, opts: TextOptions): string {
  const c = createColors(opts.color);
  const tone = (t: TableCell) =>
    t.tone === 'better'
      ? c.green(t.text)
      : t.tone === 'worse'
        ? c.red(t.text)
        : t.tone === 'muted'
          ? c.dim(t.text)
          : t.text;
  const out: string[] = [];
  const single = cmp.runs.length === 1;
  const vs = validitySection(cmp);
  const paint = (st: string, t: string) =>
    st === 'invalid' ? c.red(c.bold(t)) : st === 'suspect' ? c.yellow(t) : c.green(t);
  out.push(paint(vs.status, vs.headline));
  for (const r of vs.reasons) out.push(`  - ${r}`);
  for (const l of vs.levels) out.push(paint(l.status, `  - ${l.text}`));
  out.push('');
  out.push(
    c.bold(
      single
        ? `Report of run ${cmp.baseline}`
        : `Comparison of ${cmp.runs.length} runs; baseline: ${cmp.baseline}`,
    ),
  );
  for (const r of cmp.runs) {
    const bits = [r.source !== 'benchgate' ? `imported from ${r.source}` : null, r.engine, r.model].filter(
      Boolean,
    );
    out.push(`  ${r.name}${bits.length ? ` (${bits.join(', ')})` : ''}  ${c.dim(r.dir)}`);
    for (const w of r.warnings) out.push(c.yellow(`    note: ${w}`));
  }
  out.push('');
  const slo = sloSearchTextLines(cmp.sloSearch);
  if (slo.length) out.push(...slo, ...(single ? [] : ['']));
  if (!single) {
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
  const steady = cmp.steadyState.length
    ? [
        {
          title: STEADY_TITLE,
          header: STEADY_HEADER,
          rows: steadyTable(cmp).map((r) => r.map((text) => ({ text, tone: 'neutral' as const }))),
        },
      ]
    : [];
  for (const t of [...metricTables(cmp), ...steady]) {
    out.push('', c.bold(t.title));
    const widths = t.header.map((h, i) => Math.max(h.length, ...t.rows.map((r) => r[i].text.length)));
    out.push(
      t.header
        .map((h, i) => h.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
    out.push(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const r of t.rows)
      out.push(
        r
          .map((cell, i) => tone({ ...cell, text: cell.text.padEnd(widths[i]) }))
          .join('  ')
          .trimEnd(),
      );
  }
  const reasons = flagReasons(cmp);
  if (reasons.length) out.push('', c.bold('Flagged levels'), ...reasons.map((r) => c.yellow(`  ${r}`)));
  out.push(...multiTurnTextLines(cmp));
  out.push(...losslessTextLines(cmp.lossless));
  out.push(...telemetryTextLines(cmp.telemetry));
  if (!single) out.push('', c.dim(bootstrapNote(cmp)));
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
  return `${out.join('\n')}\n`;
}
