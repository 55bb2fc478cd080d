// Markdown rendering of a Comparison, for pasting into a design review or a pull request.

import { CACHE_TITLE, cacheLines } from './cache-section.js';
import { losslessMarkdownLines } from './lossless-section.js';
import { multiTurnMarkdownLines } from './multi-turn-section.js';
import { sloSearchMarkdownLines } from './slo-search-section.js';
import { STEADY_HEADER, STEADY_TITLE, steadyTable } from './steady-model.js';
import { bootstrapNote, exclusionNote, flagReasons, metricTables } from './table-model.js';
import { telemetryMarkdownLines } from './telemetry-section.js';
import type { Comparison } from './types.js';
import { validitySection } from './validity-model.js';

/** Escapes the characters that would break a Markdown table cell or inject markup. */
export function mdEscape(s: string): string {
  return s.replace(/[\\|*_`<>[\]]/g, (ch) => `\\${ch}`).replace(/\r?\n/g, ' ');
}

export function renderMarkdown(cmp: Comparison): string {
  const out: string[] = [];
  out.push(
    cmp.runs.length === 1
      ? `# Run report: ${mdEscape(cmp.runs[0].name)}`
      : `# Comparison: baseline ${mdEscape(cmp.baseline)}`,
    '',
  );
  const vs = validitySection(cmp);
  out.push(`## ${vs.headline}`, '');
  if (cmp.summary.length) out.push(...cmp.summary.map((r) => `- **${mdEscape(r)}**`), '');
  out.push(...vs.reasons.map((r) => `- ${mdEscape(r)}`));
  if (vs.levels.length) out.push('', ...vs.levels.map((l) => `- ${mdEscape(l.text)}`));
  out.push('');
  out.push('| run | source | engine | model | directory |', '|---|---|---|---|---|');
  for (const r of cmp.runs)
    out.push(
      `| ${mdEscape(r.name)} | ${mdEscape(r.source)} | ${mdEscape(r.engine ?? '—')} | ${mdEscape(r.model ?? '—')} | ${mdEscape(r.dir)} |`,
    );
  const notes = cmp.runs.flatMap((r) => r.warnings);
  if (notes.length) out.push('', ...notes.map((n) => `> Note: ${mdEscape(n)}`));
  out.push(...sloSearchMarkdownLines(cmp.sloSearch, mdEscape));
  if (cmp.runs.length > 1) {
    out.push('', '## Verdicts', '');
    const excluded = exclusionNote(cmp);
    if (excluded) out.push(`_${mdEscape(excluded)}_`, '');
    for (const [i, v] of cmp.verdicts.entries()) out.push(`${i + 1}. ${mdEscape(v.text)}`);
  }
  if (cmp.crossovers.length) {
    out.push('', '## Crossovers', '');
    for (const x of cmp.crossovers) out.push(`- ${mdEscape(x.text)}`);
  }
  for (const t of metricTables(cmp)) {
    out.push('', `## ${mdEscape(t.title)}`, '');
    out.push(
      `| ${t.header.map(mdEscape).join(' | ')} |`,
      `|${t.header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    );
    for (const r of t.rows) out.push(`| ${r.map((c) => mdEscape(c.text)).join(' | ')} |`);
  }
  if (cmp.steadyState.length) {
    out.push(
      '',
      `## ${mdEscape(STEADY_TITLE)}`,
      '',
      `| ${STEADY_HEADER.join(' | ')} |`,
      `|${STEADY_HEADER.map(() => '---').join('|')}|`,
    );
    for (const r of steadyTable(cmp)) out.push(`| ${r.map(mdEscape).join(' | ')} |`);
  }
  if (cmp.configDiff.length) {
    out.push(
      '',
      '## Configuration differences',
      '',
      '| run | key | baseline | run value | varied on purpose |',
      '|---|---|---|---|---|',
    );
    for (const d of cmp.configDiff)
      out.push(
        `| ${mdEscape(d.run)} | ${mdEscape(d.key)} | ${mdEscape(d.baseline)} | ${mdEscape(d.other)} | ${d.expected ? 'yes' : '**no**'} |`,
      );
  }
  const reasons = flagReasons(cmp);
  if (reasons.length) out.push('', '## Flagged levels', '', ...reasons.map((r) => `- ${mdEscape(r)}`));
  const cache = cacheLines(cmp.cache, cmp.runs.length === 1);
  if (cache.length) out.push('', `## ${mdEscape(CACHE_TITLE)}`, '', ...cache.map((l) => `- ${mdEscape(l)}`));
  out.push(...multiTurnMarkdownLines(cmp, mdEscape));
  out.push(...losslessMarkdownLines(cmp.lossless, mdEscape));
  out.push(...telemetryMarkdownLines(cmp.telemetry, mdEscape));
  if (cmp.runs.length > 1) out.push('', `_${mdEscape(bootstrapNote(cmp))}_`);
  out.push('');
  return out.join('\n');
}
