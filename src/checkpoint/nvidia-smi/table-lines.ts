// The line grammar of nvidia-smi's default table, shared by the GPU, MIG and Processes readers: borders
// (`+----+`), separators (`|====|`), rows split into the cells that were closed by a `|` (a line cut by a
// narrow terminal keeps only the cells it shows whole), and pastes whose lines a terminal wrapped.

import { MAX_LINE_CHARS } from './text.js';

export const isBorder = (l: string): boolean => /^\+[-+=]*$/.test(l) && l.length > 2;
export const isSeparator = (l: string): boolean => /^\|[=|+]+$/.test(l) && l.includes('==');
export const isRow = (l: string): boolean => l.startsWith('|') && !isSeparator(l);

/** The cells of a row that a `|` closes on both sides; a cut line's partial last cell is dropped. */
export function closedCells(line: string): string[] {
  const parts = line.split('|');
  return parts.slice(1, parts.length - 1);
}

/** True when a table line ends as nvidia-smi ends it (`|` or `+`), i.e. no terminal cut it short. */
export const isComplete = (line: string): boolean => /[|+]$/.test(line);

/** Terminals wrap at their width; a line shorter than this was not wrapped. */
const MIN_WRAP_COLUMNS = 60;

/**
 * The table's lines, each trimmed (pastes indent them in Markdown lists), with lines a terminal wrapped
 * joined back: a table line of at least a terminal's width that does not end the way table lines end,
 * followed by a line that does not start like one but ends like one, is one line.
 */
export function tableLines(lines: string[]): string[] {
  const trimmed = lines.map((l) => (l.length > MAX_LINE_CHARS ? '' : l.trim()));
  const out: string[] = [];
  for (let i = 0; i < trimmed.length; i++) {
    const line = trimmed[i];
    const next = trimmed[i + 1] ?? '';
    // the raw line: a wrapped row keeps the spaces before the break, a whole row ends in `|`
    const raw = lines[i].trimStart();
    const wrapped =
      raw.length >= MIN_WRAP_COLUMNS &&
      /^[|+]/.test(raw) &&
      !isComplete(raw) &&
      next !== '' &&
      !/^[|+]/.test(next) &&
      isComplete(next);
    if (wrapped) {
      // the break kept the spaces on either side of it: join the raw lines
      out.push(`${raw}${lines[i + 1]}`.trim());
      i++;
      continue;
    }
    out.push(line);
  }
  return out;
}

/** Index of the first line at or after `from` that matches, or -1. */
export function findLine(lines: string[], from: number, test: (l: string) => boolean): number {
  for (let i = Math.max(0, from); i < lines.length; i++) if (test(lines[i])) return i;
  return -1;
}

/** True when a line opens the table's Processes or MIG devices section. */
export const opensSection = (l: string, name: 'Processes' | 'MIG devices'): boolean =>
  l.startsWith('|') && new RegExp(`^\\|\\s*${name}:`).test(l);

/**
 * The column header of the Processes section (`|  GPU   GI   CI   PID   Type   Process name …`, and the
 * old `|  GPU   PID   Type   Process name …`): where a paste of the section alone starts when it
 * dropped the `Processes:` title line above it.
 */
export const PROCESS_COLUMNS_RE = /^\s*\|\s*GPU\s+(?:GI\s+CI\s+)?PID\s+Type\s+Process name\b/;
