// CSV rendering of a Comparison: one row per (metric, level, run) in long form, for spreadsheets and pandas
// (every line has the header's columns; no prose rows).
// The first columns are the validity of that run at that level (a forced run is invalid on every row).

import { levelLabel } from './levels.js';
import { METRICS } from './metric-catalog.js';
import { sloSearchCsvRows } from './slo-search-section.js';
import { flagNote } from './table-model.js';
import type { Comparison } from './types.js';
import { cellValidity } from './validity-model.js';

export function csvField(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : String(v);
  // quote when needed; neutralise spreadsheet formulas from server/plan strings
  const safe = /^[=+\-@\t\r]/.test(s) && typeof v === 'string' ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const HEADER = [
  'validity',
  'validity_reasons',
  'metric',
  'unit',
  'level_kind',
  'level_value',
  'level_label',
  'run',
  'is_baseline',
  'value',
  'ratio_to_baseline',
  'ci_low',
  'ci_high',
  'significant',
  'requests',
  'excluded_reason',
] as const;

type Field = string | number | boolean | null;

/** One CSV line from the named columns given (the others empty). */
function line(fields: Partial<Record<(typeof HEADER)[number], Field>>): string {
  return HEADER.map((h) => csvField(fields[h] ?? null)).join(',');
}

/**
 * Rows that lead: skipped configs, SLO searches, then the cached share per level. The one-screen summary is
 * prose, not data: it goes with the other formats (and to stderr beside a CSV on stdout), never into rows.
 */
function leadingLines(cmp: Comparison): string[] {
  const runStatus = (run: string) => cmp.validity.runs.find((x) => x.run === run)?.status ?? 'valid';
  return [
    // a skipped matrix config has no numbers: one row saying so, before any measured row
    ...cmp.validity.skipped.map((sk) =>
      line({ validity: 'invalid', validity_reasons: `skipped: ${sk.reason}`, run: sk.name }),
    ),
    // an SLO search leads: the found load per run, then every probe's share meeting the SLOs
    ...sloSearchCsvRows(cmp.sloSearch).map((r) =>
      line({
        validity: runStatus(r.run),
        metric: r.metric,
        unit: r.unit,
        level_kind: r.kind || null,
        level_value: r.load,
        run: r.run,
        is_baseline: r.run === cmp.baseline,
        value: r.value,
        excluded_reason: r.note,
      }),
    ),
    ...cmp.cache.map((r) =>
      line({
        validity: runStatus(r.run),
        metric: 'cached_share',
        unit: 'share of prompt tokens',
        level_kind: r.level.kind,
        level_value: r.level.value,
        level_label: r.label,
        run: r.run,
        is_baseline: r.run === cmp.baseline,
        value: r.share,
        excluded_reason: r.text,
      }),
    ),
  ];
}

export function renderCsv(cmp: Comparison): string {
  const lines = [HEADER.join(','), ...leadingLines(cmp)];
  for (const m of cmp.metrics) {
    for (const [k, row] of cmp.levels.entries()) {
      for (const cell of row.cells[m] ?? []) {
        const v = cellValidity(cmp, cell.run, k);
        lines.push(
          line({
            validity: v.status,
            validity_reasons: v.reasons || null,
            metric: m,
            unit: METRICS[m].unit,
            level_kind: row.level.kind,
            level_value: row.level.value,
            level_label: levelLabel(row.level),
            run: cell.run,
            is_baseline: cell.run === cmp.baseline,
            value: cell.value,
            ratio_to_baseline: cell.ratio,
            ci_low: cell.ci?.low ?? null,
            ci_high: cell.ci?.high ?? null,
            significant: cell.significant,
            requests: cell.n,
            excluded_reason: [flagNote(row), cell.withheld].filter(Boolean).join('; ') || null,
          }),
        );
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
