// The multi-turn section of a report: for each level of a multi-turn run, TTFT (mean, p50, p99) and the
// history length at each turn position, read from the level summaries (`multiTurn`). A separate section
// beside the per-level tables, so the other renderers' tables stay untouched: text, Markdown and HTML
// append it; JSON already carries the summaries.

import type { TurnSummary } from '../metrics/summary.js';
import { supportedPercentile, withheldNote } from '../metrics/tail-samples.js';
import { formatPercent, formatValue } from './format.js';
import { levelId } from './levels.js';
import type { Comparison } from './types.js';

export interface MultiTurnTable {
  run: string;
  /** The level's label, e.g. "c=4". */
  level: string;
  header: string[];
  rows: string[][];
}

const HEADER = [
  'turn',
  'ok',
  'fail',
  'history tok',
  'server prompt tok',
  'cached',
  'TTFT mean',
  'TTFT p50',
  'TTFT p99',
];

/** A percentile as every table shows it: the value when the samples support it, else why not. */
function tailText(d: TurnSummary['ttftMs'], p: number): string {
  return withheldNote(d, p) ?? formatValue(supportedPercentile(d, p));
}

/** One table per (run, level) whose summary has per-turn figures; empty when none has. */
export function multiTurnTables(cmp: Comparison): MultiTurnTable[] {
  const labels = new Map(cmp.levels.map((l) => [levelId(l.level), l.label]));
  return cmp.series.flatMap((s) =>
    s.points.flatMap((p) => {
      const turns = p.summary.multiTurn;
      if (!turns?.length) return [];
      const rows = turns.map((t) => [
        String(t.turn),
        String(t.completed),
        String(t.failed),
        formatValue(t.historyTokens?.mean),
        formatValue(t.inputTokensServerMean),
        t.cachedShare === null ? '—' : formatPercent(t.cachedShare),
        formatValue(t.ttftMs?.mean),
        tailText(t.ttftMs, 50),
        tailText(t.ttftMs, 99),
      ]);
      return [{ run: s.run, level: labels.get(levelId(p.level)) ?? levelId(p.level), header: HEADER, rows }];
    }),
  );
}

const TITLE =
  'Multi-turn: TTFT and history length by turn (ms; history tok: client count of the whole history sent)';

export function multiTurnTextLines(cmp: Comparison): string[] {
  const tables = multiTurnTables(cmp);
  if (!tables.length) return [];
  const out = ['', TITLE];
  for (const t of tables) {
    const widths = t.header.map((h, i) => Math.max(h.length, ...t.rows.map((r) => r[i].length)));
    const line = (cells: string[]) => `  ${cells.map((c, i) => c.padStart(widths[i])).join('  ')}`;
    out.push(`  ${t.run} ${t.level}`, line(t.header), ...t.rows.map(line));
  }
  return out;
}

/** Markdown lines; `mdEscape` is the markdown renderer's escaping (passed in to keep one owner of it). */
export function multiTurnMarkdownLines(cmp: Comparison, mdEscape: (s: string) => string): string[] {
  const tables = multiTurnTables(cmp);
  if (!tables.length) return [];
  const out = ['', `## ${TITLE}`];
  for (const t of tables) {
    out.push('', `**${mdEscape(t.run)} ${mdEscape(t.level)}**`, '');
    out.push(`| ${t.header.join(' | ')} |`, `|${t.header.map(() => '---:').join('|')}|`);
    for (const r of t.rows) out.push(`| ${r.join(' | ')} |`);
  }
  return out;
}

/** HTML; `esc` is the HTML renderer's escaping (passed in to keep one owner of it). */
export function multiTurnHtml(cmp: Comparison, esc: (s: string) => string): string {
  const tables = multiTurnTables(cmp);
  if (!tables.length) return '';
  const h = [`<h2 id="multi-turn">${esc(TITLE)}</h2>`];
  for (const t of tables) {
    h.push(
      `<h3>${esc(t.run)} ${esc(t.level)}</h3><table><thead><tr>${t.header.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>`,
      ...t.rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`),
      '</tbody></table>',
    );
  }
  return h.join('');
}
