// Plain aligned text tables for the store's commands (runs, query, history, gate): a header, a rule, one
// line per row; numbers right-aligned with the report's number format, everything else left-aligned.

import { formatValue } from '../report/format.js';

export type Cell = string | number | boolean | null | undefined;

function cellText(v: Cell | unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : formatValue(v);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function textTable(
  columns: readonly string[],
  rows: readonly (readonly (Cell | unknown)[])[],
): string {
  const text = rows.map((r) => r.map(cellText));
  const numeric = columns.map(
    (_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] == null),
  );
  const widths = columns.map((c, i) => Math.max(c.length, ...text.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n') + '\n';
}
