// Self-contained HTML report: inline CSS and inline SVG charts, no scripts, no network at view time,
// printable. Every string that came from a server, a plan or a file is escaped.

import { cacheHtml } from './cache-section.js';
import { renderChartSvg } from './chart-svg.js';
import { chartSpecs } from './charts.js';
import { escapeHtml as esc } from './escape.js';
import { FIRST_SCREEN_CSS, firstScreenHtml } from './first-screen.js';
import { losslessHtml } from './lossless-section.js';
import { METRICS } from './metric-catalog.js';
import { multiTurnHtml } from './multi-turn-section.js';
import { sloSearchHtml } from './slo-search-section.js';
import { STEADY_HEADER, STEADY_TITLE, steadyTable } from './steady-model.js';
import { bootstrapNote, exclusionNote, flagReasons, type MetricTable, metricTables } from './table-model.js';
import { telemetryHtml } from './telemetry-section.js';
import type { Comparison } from './types.js';
import { validitySection } from './validity-model.js';

const CSS = `
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", Arial, Helvetica, sans-serif; margin: 24px auto; max-width: 1100px; color: #111; line-height: 1.4; padding: 0 16px; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; vertical-align: top; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
thead th { background: #f3f3f3; }
.better { color: #0a6b2f; font-weight: bold; }
.worse { color: #b00020; font-weight: bold; }
.muted { color: #888; }
.warning { background: #fff4d6; border-left: 5px solid #e6a100; padding: 8px 12px; margin: 8px 0; }
.note { background: #eef4fb; border-left: 5px solid #4a86c5; padding: 6px 12px; margin: 6px 0; }
ol.verdicts li { margin: 4px 0; }
figure.chart { margin: 12px 0 20px; page-break-inside: avoid; break-inside: avoid; }
figure.chart svg { max-width: 100%; height: auto; }
.telemetry-row { display: flex; flex-wrap: wrap; gap: 0 16px; }
.telemetry-row figure.chart { flex: 1 1 520px; margin: 6px 0 14px; }
.status-pass { color: #0a6b2f; } .status-warn { color: #9a6700; } .status-fail { color: #b00020; font-weight: bold; } .status-skip { color: #888; }
footer { margin-top: 2em; font-size: 0.85em; color: #555; }
.validity { border-left: 6px solid #0a6b2f; background: #eef8f0; padding: 6px 14px; margin: 10px 0 18px; }
.validity-suspect { border-color: #e6a100; background: #fff4d6; }
.validity-invalid { border-color: #b00020; background: #fde8eb; }
.validity h2 { border: none; margin: 4px 0; }
.metric-picker > input { position: absolute; opacity: 0; }
.metric-picker > label { display: inline-block; border: 1px solid #ccc; border-radius: 4px; padding: 2px 8px; margin: 2px; cursor: pointer; font-size: 0.85em; }
.metric-picker > input:checked + label { background: #4a86c5; color: #fff; border-color: #4a86c5; }
.metric-picker > input:focus-visible + label { outline: 2px solid #111; }
.metric-picker .metric { display: none; }
#metric-all:checked ~ .metric-tables .metric { display: block; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  h2 { page-break-after: avoid; break-after: avoid; }
  table, figure.chart { page-break-inside: avoid; break-inside: avoid; }
  .warning, .note, .validity { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .metric-picker > input, .metric-picker > label { display: none; }
  .metric-picker .metric { display: block !important; }
}
`;

export interface HtmlOptions {
  title?: string;
  /** ISO time shown in the footer (pass it in: renderers do not read the clock). */
  generatedAt?: string;
  version?: string;
}

export function renderHtml(cmp: Comparison, opts: HtmlOptions = {}): string {
  const title =
    opts.title ??
    (cmp.runs.length === 1
      ? `benchgate report: ${cmp.baseline}`
      : `benchgate comparison: ${cmp.runs.map((r) => r.name).join(' vs ')}`);
  const h: string[] = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title>`,
    `<style>${CSS}${FIRST_SCREEN_CSS}${pickerCss(cmp)}</style>`,
    '</head><body>',
    `<h1>${esc(title)}</h1>`,
    firstScreenHtml(cmp),
    validityHtml(cmp),
    `<p>Baseline: <strong>${esc(cmp.baseline)}</strong>.</p>`,
  ];
  for (const r of cmp.runs) for (const n of r.warnings) h.push(`<div class="note">${esc(n)}</div>`);
  h.push(sloSearchHtml(cmp.sloSearch, esc), verdictsHtml(cmp), '<h2 id="charts">Charts</h2>');
  for (const spec of chartSpecs(cmp))
    h.push(
      `<figure class="chart" id="chart-${esc(spec.id)}">${renderChartSvg(spec)}<figcaption class="muted">${esc(spec.title)}. Hollow markers: levels excluded from verdicts (client-limited, invalid or a window too short).</figcaption></figure>`,
    );
  h.push('<h2 id="tables">Per-level results</h2>');
  if (cmp.runs.length > 1) h.push(`<p class="muted">${esc(bootstrapNote(cmp))}</p>`);
  const reasons = flagReasons(cmp);
  if (reasons.length)
    h.push(
      `<div class="note"><strong>Flagged levels</strong><ul>${reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul></div>`,
    );
  h.push(
    metricPicker(cmp),
    steadyHtml(cmp),
    cacheHtml(cmp.cache, cmp.runs.length === 1, esc),
    multiTurnHtml(cmp, esc),
    losslessHtml(cmp.lossless, esc),
    telemetryHtml(cmp.telemetry, esc),
    configDiffHtml(cmp),
    findingsHtml(cmp),
    runsHtml(cmp),
    `<footer>Generated by benchgate${opts.version ? ` ${esc(opts.version)}` : ''}${opts.generatedAt ? ` at ${esc(opts.generatedAt)}` : ''}. Schema benchgate.compare/1.</footer>`,
    '</body></html>',
  );
  return `${h.join('\n')}\n`;
}

function verdictsHtml(cmp: Comparison): string {
  if (cmp.runs.length < 2) return '';
  const h = ['<h2 id="verdicts">Verdicts</h2>'];
  const excluded = exclusionNote(cmp);
  if (excluded) h.push(`<div class="note">${esc(excluded)}</div>`);
  if (cmp.verdicts.length > 0)
    h.push(`<ol class="verdicts">${cmp.verdicts.map((v) => `<li>${esc(v.text)}</li>`).join('')}</ol>`);
  if (cmp.crossovers.length)
    h.push(
      '<h2 id="crossovers">Crossovers</h2>',
      `<ul>${cmp.crossovers.map((x) => `<li>${esc(x.text)}</li>`).join('')}</ul>`,
    );
  return h.join('\n');
}

function configDiffHtml(cmp: Comparison): string {
  const h = ['<h2 id="config">Configuration differences</h2>'];
  if (cmp.configDiff.length === 0) {
    h.push(
      `<p class="muted">${cmp.runs.length > 1 ? 'No differences among the verified configuration facts both runs report.' : 'A single run: nothing to diff.'}</p>`,
    );
    return h.join('\n');
  }
  h.push(
    '<table><thead><tr><th class="text">run</th><th class="text">key</th><th class="text">baseline</th><th class="text">this run</th><th class="text">varied on purpose</th></tr></thead><tbody>',
  );
  for (const d of cmp.configDiff)
    h.push(
      `<tr class="${d.expected ? '' : 'worse'}"><td>${esc(d.run)}</td><td class="text">${esc(d.key)}</td><td class="text">${esc(d.baseline)}</td><td class="text">${esc(d.other)}</td><td class="text">${d.expected ? 'yes' : 'no'}</td></tr>`,
    );
  h.push('</tbody></table>');
  return h.join('\n');
}

function findingsHtml(cmp: Comparison): string {
  const h = ['<h2 id="findings">Checkpoint findings</h2>'];
  if (cmp.findings.length === 0) {
    h.push('<p class="muted">No checkpoint findings recorded (checkpoint skipped, or imported results).</p>');
    return h.join('\n');
  }
  h.push(
    '<table><thead><tr><th class="text">run</th><th class="text">status</th><th class="text">check</th><th class="text">expected</th><th class="text">found</th></tr></thead><tbody>',
  );
  for (const f of cmp.findings)
    h.push(
      `<tr><td>${esc(f.run)}</td><td class="text status-${esc(f.status)}">${esc(f.status)}</td><td class="text">${esc(f.title)} <span class="muted">(${esc(f.id)})</span></td><td class="text">${esc(f.expected ?? '')}</td><td class="text">${esc(f.found ?? '')}</td></tr>`,
    );
  h.push('</tbody></table>');
  return h.join('\n');
}

function runsHtml(cmp: Comparison): string {
  const h = [
    '<h2 id="runs">Runs</h2><table><thead><tr><th class="text">run</th><th class="text">source</th><th class="text">engine</th><th class="text">model</th><th>trials</th><th class="text">directory</th></tr></thead><tbody>',
  ];
  for (const r of cmp.runs)
    h.push(
      `<tr><td>${esc(r.name)}</td><td class="text">${esc(r.source)}</td><td class="text">${esc(r.engine ?? '—')}</td><td class="text">${esc(r.model ?? '—')}</td><td>${r.trials}</td><td class="text">${esc(r.dir)}</td></tr>`,
    );
  h.push('</tbody></table>');
  return h.join('\n');
}

/**
 * The validity verdict under the first screen: status, the one-screen summary, the reasons, then the
 * per-level detail folded (one line per level and cause; the first screen already said each cause once).
 */
function validityHtml(cmp: Comparison): string {
  const vs = validitySection(cmp);
  const summary = cmp.summary.length
    ? `<ul id="summary" class="summary">${cmp.summary.map((t) => `<li><strong>${esc(t)}</strong></li>`).join('')}</ul>`
    : '';
  const levels = vs.levels.length
    ? `<details id="level-validity"><summary>Per-level detail (${vs.levels.length} level${vs.levels.length === 1 ? '' : 's'} with something to say)</summary><ul>${vs.levels.map((l) => `<li>${esc(l.text)}</li>`).join('')}</ul></details>`
    : '';
  return `<section id="validity" class="validity validity-${vs.status}" role="${vs.status === 'valid' ? 'status' : 'alert'}"><h2>${esc(vs.headline)}</h2>${summary}<ul>${vs.reasons.map((t) => `<li>${esc(t)}</li>`).join('')}</ul>${levels}</section>`;
}

/** One CSS rule per metric: its radio shows its table (no script: radio inputs and :checked). */
function pickerCss(cmp: Comparison): string {
  return cmp.metrics
    .map((m) => `#metric-${m}:checked ~ .metric-tables #table-${m} { display: block; }`)
    .join('\n');
}

function tableHtml(t: MetricTable): string {
  const head = t.header
    .map((c, i) => `<th${i === t.header.length - 1 ? ' class="text"' : ''}>${esc(c)}</th>`)
    .join('');
  const rows = t.rows.map(
    (r) =>
      `<tr>${r.map((c, i) => `<td class="${c.tone === 'neutral' ? '' : c.tone}${i === r.length - 1 ? ' text' : ''}">${esc(c.text)}</td>`).join('')}</tr>`,
  );
  return `<section class="metric" id="table-${t.metric}"><h3>${esc(t.title)}</h3><table><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

/** Every metric's table behind a CSS-only selector; "all" (the default) shows every table, as print does. */
function metricPicker(cmp: Comparison): string {
  const tables = metricTables(cmp);
  const radios = [
    '<input type="radio" name="metric" id="metric-all" checked><label for="metric-all">all metrics</label>',
    ...tables.map(
      (t) =>
        `<input type="radio" name="metric" id="metric-${t.metric}"><label for="metric-${t.metric}">${esc(METRICS[t.metric].label)}</label>`,
    ),
  ];
  return `<div class="metric-picker" id="metrics">${radios.join('')}<div class="metric-tables">${tables.map(tableHtml).join('')}</div></div>`;
}

function steadyHtml(cmp: Comparison): string {
  if (cmp.steadyState.length === 0) return '';
  const head = STEADY_HEADER.map((c, i) => `<th${i < 2 ? ' class="text"' : ''}>${esc(c)}</th>`).join('');
  const rows = steadyTable(cmp).map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`);
  return `<h3 id="steady-state">${esc(STEADY_TITLE)}</h3><table><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
