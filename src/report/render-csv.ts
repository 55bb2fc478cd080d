// CSV rendering of a Comparison: one row per (metric, level, run) in long form, for spreadsheets and pandas.
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

export function renderCsv(cmp: Comparison): string {
  const header = [
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
  ];
  const lines = [header.join(',')];
  // a skipped matrix config has no numbers: one row saying so, before any measured row
  for (const sk of cmp.validity.skipped) {
    const row: (string | null)[] = header.map(() => null);
    row[0] = 'invalid';
    row[1] = `skipped: ${sk.reason}`;
    row[header.indexOf('run')] = sk.name;
    lines.push(row.map(csvField).join(','));
  }
  // an SLO search leads: the found load per run, then every probe's share meeting the SLOs
  for (const r of sloSearchCsvRows(cmp.sloSearch)) {
    const row: (string | number | boolean | null)[] = header.map(() => null);
    const rv = cmp.validity.runs.find((x) => x.run === r.run);
    row[0] = rv?.status ?? 'valid';
    row[header.indexOf('metric')] = r.metric;
    row[header.indexOf('unit')] = r.unit;
    row[header.indexOf('level_kind')] = r.kind || null;
    row[header.indexOf('level_value')] = r.load;
    row[header.indexOf('run')] = r.run;
    row[header.indexOf('is_baseline')] = r.run === cmp.baseline;
    row[header.indexOf('value')] = r.value;
    row[header.indexOf('excluded_reason')] = r.note;
    lines.push(row.map(csvField).join(','));
  }
  for (const m of cmp.metrics) {
    for (const [k, row] of cmp.levels.entries()) {
      for (const cell of row.cells[m] ?? []) {
        const flags = flagNote(row);
        const v = cellValidity(cmp, cell.run, k);
        lines.push(
          [
            v.status,
            v.reasons || null,
            m,
            METRICS[m].unit,
            row.level.kind,
            row.level.value,
            levelLabel(row.level),
            cell.run,
            cell.run === cmp.baseline,
            cell.value,
            cell.ratio,
            cell.ci?.low ?? null,
            cell.ci?.high ?? null,
            cell.significant,
            cell.n,
            [flags, cell.withheld].filter(Boolean).join('; ') || null,
          ]
            .map(csvField)
            .join(','),
        );
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
