// The lossless section of a report or comparison: each run's greedy-output verdict against the
// baseline (from its lossless.json), with the prompt and both continuations of an early divergence.
// A separate section, so the validity renderers stay untouched: text, markdown and HTML append it,
// JSON carries the rows as they are.

import { losslessLines, VERDICT_WORDS } from '../metrics/lossless.js';
import type { LoadedRun } from '../results/layout.js';

export interface LosslessRow {
  run: string;
  baseline: string;
  /** "baseline" for the baseline itself. */
  verdict: string;
  summary: string;
  valid: boolean;
  required: boolean;
  /** The verdict line, then each early divergence with the prompt and both continuations. */
  lines: string[];
}

/** One row per run that carries a lossless verdict; empty when none does. */
export function losslessRows(runs: readonly Pick<LoadedRun, 'name' | 'lossless'>[]): LosslessRow[] {
  return runs.flatMap((r) => {
    const l = r.lossless;
    if (!l) return [];
    if (l.isBaseline || !l.comparison)
      return [
        {
          run: r.name,
          baseline: l.baseline,
          verdict: 'baseline',
          summary: 'the baseline',
          valid: true,
          required: l.required,
          lines: [],
        },
      ];
    return [
      {
        run: r.name,
        baseline: l.baseline,
        verdict: VERDICT_WORDS[l.comparison.verdict],
        summary: l.comparison.summary,
        valid: l.valid,
        required: l.required,
        lines: losslessLines(l.comparison),
      },
    ];
  });
}

const validityWord = (row: LosslessRow) => (row.valid ? '' : ' — invalid (lossless.required)');

export function losslessTextLines(rows: readonly LosslessRow[] | undefined): string[] {
  if (!rows?.length) return [];
  const out = ['', 'Lossless (greedy answers vs baseline)'];
  for (const row of rows) {
    if (row.verdict === 'baseline') out.push(`  ${row.run}: baseline`);
    else
      out.push(
        `  ${row.run}: ${row.summary}${validityWord(row)}`,
        ...row.lines.slice(1).map((l) => `  ${l}`),
      );
  }
  return out;
}

/** Markdown lines; `mdEscape` is the markdown renderer's escaping (passed in to keep one owner of it). */
export function losslessMarkdownLines(
  rows: readonly LosslessRow[] | undefined,
  mdEscape: (s: string) => string,
): string[] {
  if (!rows?.length) return [];
  const out = ['', '## Lossless (greedy answers vs baseline)', ''];
  for (const row of rows) {
    if (row.verdict === 'baseline') out.push(`- **${mdEscape(row.run)}**: baseline`);
    else {
      out.push(`- **${mdEscape(row.run)}**: ${mdEscape(row.summary)}${mdEscape(validityWord(row))}`);
      if (row.lines.length > 1) out.push('', '  ```', ...row.lines.slice(1).map((l) => `  ${l}`), '  ```');
    }
  }
  return out;
}

/** HTML; `esc` is the HTML renderer's escaping (passed in to keep one owner of it). */
export function losslessHtml(rows: readonly LosslessRow[] | undefined, esc: (s: string) => string): string {
  if (!rows?.length) return '';
  const items = rows.map((row) => {
    if (row.verdict === 'baseline') return `<li><strong>${esc(row.run)}</strong>: baseline</li>`;
    const detail = row.lines.length > 1 ? `<pre>${esc(row.lines.slice(1).join('\n'))}</pre>` : '';
    const cls = row.valid ? '' : ' class="worse"';
    return `<li${cls}><strong>${esc(row.run)}</strong>: ${esc(row.summary)}${esc(validityWord(row))}${detail}</li>`;
  });
  return `<h2 id="lossless">Lossless (greedy answers vs baseline)</h2><ul>${items.join('')}</ul>`;
}
