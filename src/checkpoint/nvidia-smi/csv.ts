// The CSV side of nvidia-smi (`--format=csv`, `csv,noheader`, `csv,noheader,nounits`): one record per
// line, cells split on commas outside double quotes (pastes and spreadsheets quote cells; nvidia-smi's
// own CSV has no multi-line records, so a general CSV parser's multi-line quoting would only let a cut
// quote swallow the rest). Columns are named by the header row, else by a `--query-…=` command line in
// the paste, else by the order of the query benchgate runs. A last line shorter than the others is a cut.

import { isPlaceholder, MAX_LINE_CHARS } from './text.js';

/** Lines nvidia-smi may print around its CSV (driver warnings) that carry no row. */
const NOISE = /^(WARNING|Warning|NOTE):/;
/** A shell prompt line or an echoed command, as pastes carry them. */
const PROMPT = /^([\w.@~:/()[\]-]*[$#%>](\s|$)|PS [A-Z]:\\)|\bnvidia-smi\b/;
const FIELD_LIKE = /^[a-z][a-z0-9_.]*(\s*\[[^\]]*\])?$/i;

/** The cells of one CSV line: split on commas outside double quotes, trimmed, quotes removed. */
export function splitCells(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"' && quoted && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"' && (quoted || cell.trim() === '')) {
      quoted = !quoted;
      if (quoted) cell = '';
    } else if (c === ',' && !quoted) {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

/** A header cell's field name: `memory.used [MiB]` → `memory.used`, aliases to one spelling. */
export function fieldName(cell: string, aliases: Record<string, string>): string {
  const f = cell
    .trim()
    .replace(/\s*\[[^\]]*\]\s*$/, '')
    .toLowerCase();
  return aliases[f] ?? f;
}

export interface CsvRow {
  cells: string[];
  line: string;
}

export interface Csv {
  /** Field names from the header row, the pasted command line or the known invocation, or null. */
  fields: string[] | null;
  /** True when the fields come only from the invocation the caller ran (the text named none). */
  fromInvocation: boolean;
  rows: CsvRow[];
}

/** The `--query-gpu=` / `--query-compute-apps=` fields of a pasted command line, or null. */
function commandFields(line: string, option: string): string[] | null {
  const m = new RegExp(`--${option}=([\\w.,]+)`).exec(line);
  return m ? m[1].split(',').filter(Boolean) : null;
}

/**
 * The rows of a CSV output: noise and prompt lines dropped, the header recognised by its field names
 * (one of `known`), else the fields of a pasted `--<option>=` command line, else those of the
 * `invocation` the caller ran (a `noheader` query's columns are exactly the ones it asked for).
 */
export function readCsv(
  lines: string[],
  opts: {
    option: string;
    known: Set<string>;
    aliases: Record<string, string>;
    skip?: RegExp;
    invocation?: readonly string[];
  },
): Csv | { bad: string; line: string } {
  let fields: string[] | null = null;
  const rows: CsvRow[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || NOISE.test(line) || opts.skip?.test(line)) continue;
    if (line.length > MAX_LINE_CHARS) return { bad: 'a line is too long for nvidia-smi CSV', line };
    if (PROMPT.test(line)) {
      fields ??= commandFields(line, opts.option)?.map((f) => fieldName(f, opts.aliases)) ?? null;
      continue;
    }
    const cells = splitCells(line);
    const names = cells.map((c) => fieldName(c, opts.aliases));
    if (cells.every((c) => FIELD_LIKE.test(c)) && names.some((n) => opts.known.has(n))) {
      // the header, or the same header again (a loop, or two pasted runs of the query)
      if (rows.length === 0 || names.join(',') === fields?.join(',')) {
        fields = names;
        continue;
      }
    }
    rows.push({ cells, line });
  }
  if (fields || !opts.invocation) return { fields, fromInvocation: false, rows };
  const asked = commandFields(opts.invocation.join(' '), opts.option)?.map((f) => fieldName(f, opts.aliases));
  return { fields: asked ?? null, fromInvocation: asked !== undefined, rows };
}

/**
 * The cells of a row under `fields`, with the commas of a name folded back into its column
 * (`NVIDIA H100, PCIe` split in two); null when the count does not match.
 */
export function cellsUnder(cells: string[], fields: string[], nameFields: string[]): string[] | null {
  if (cells.length === fields.length) return cells;
  const n = fields.findIndex((f) => nameFields.includes(f));
  const extra = cells.length - fields.length;
  if (n < 0 || extra < 0) return null;
  return [...cells.slice(0, n), cells.slice(n, n + extra + 1).join(','), ...cells.slice(n + extra + 1)];
}

/** The value of a field in a row, or undefined when the CSV has no such column. */
export function cellOf(cells: string[], fields: string[], ...names: string[]): string | undefined {
  const i = fields.findIndex((f) => names.includes(f));
  return i >= 0 ? cells[i] : undefined;
}

/** A text cell's value: null for nvidia-smi's placeholders and empty cells. */
export const textOf = (s: string | undefined): string | null =>
  s === undefined || s.trim() === '' || isPlaceholder(s) ? null : s.trim();

/** Why the last row looks cut (fewer cells than the rows before it), or null. */
export function cutLastRow(rows: CsvRow[], expected: number): string | null {
  const last = rows[rows.length - 1];
  if (!last || last.cells.length >= expected) return null;
  return `the last line is cut (${last.cells.length} of ${expected} cells: ${last.line.slice(0, 80)})`;
}
