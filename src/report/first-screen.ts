// The HTML report's first screen, read in ten seconds: the answer per load band (best config, by how much,
// with its interval) as a compact table beside the throughput-vs-load chart, then one line per cause of
// doubt (not one per level), then the configs that never ran with the evidence of why. The per-level
// detail follows below, folded.

import { renderChartSvg } from './chart-svg.js';
import { chartSpecs } from './charts.js';
import { escapeHtml as esc } from './escape.js';
import { formatChange } from './format.js';
import { METRICS } from './metric-catalog.js';
import { answerBands, bandWho, distrustLines } from './summary-model.js';
import type { Comparison } from './types.js';
import { validitySection } from './validity-model.js';

export const FIRST_SCREEN_CSS = `
#first-screen { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: flex-start; margin: 6px 0 10px; }
#first-screen .answer { flex: 1 1 380px; min-width: 320px; }
#first-screen figure.chart { flex: 1 1 480px; margin: 0; }
#answer td, #answer th { font-size: 0.95em; } #answer td:last-child { white-space: nowrap; }
#first-screen .answer { overflow-x: auto; }
#answer .best { font-weight: bold; }
.status-badge { display: inline-block; padding: 1px 8px; border-radius: 9px; color: #fff; font-weight: bold; font-size: 0.85em; }
.status-valid { background: #2e7d32; } .status-suspect { background: #c77700; } .status-invalid { background: #c62828; }
ul.doubts { margin: 6px 0; padding-left: 20px; } ul.doubts li { margin: 2px 0; }
.skipped-config { border-left: 5px solid #b00020; background: #fde8eb; padding: 4px 10px; margin: 6px 0; }
.skipped-config pre { white-space: pre-wrap; margin: 4px 0; font-size: 0.85em; }
`;

function answerTable(cmp: Comparison): string {
  const metric = cmp.metrics.find((m) => METRICS[m].inVerdicts) ?? cmp.metrics[0];
  if (!metric) return '';
  if (cmp.runs.length < 2) return '';
  const bands = answerBands(cmp, metric);
  if (bands.length === 0)
    return `<p class="note">${esc(cmp.verdictsWithheld ?? 'No load band has a meaningful difference to name.')}</p>`;
  const rows = bands.map((b) => {
    const cell = b.evidence?.cell;
    // where the baseline wins, the change is the closest challenger's (how far behind it is)
    const who = cell && cell.run !== b.best ? `${cell.run} ` : '';
    const change = cell ? `${who}${formatChange(cell.ratio)} at ${b.evidence?.level}` : '';
    const ci = cell?.ci ? `${formatChange(cell.ci.low)} to ${formatChange(cell.ci.high)}` : '—';
    const best = b.best ?? bandWho(b);
    return `<tr><td>${esc(b.label)}</td><td class="text${b.best ? ' best' : ' muted'}">${esc(best)}</td><td>${esc(change)}</td><td>${esc(ci)}</td></tr>`;
  });
  return `<table id="answer"><caption class="muted">Best by ${esc(METRICS[metric].noun)}, vs ${esc(cmp.baseline)}</caption><thead><tr><th class="text">load</th><th class="text">best</th><th>change</th><th>95% CI</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function singleRunAnswer(cmp: Comparison): string {
  if (cmp.runs.length !== 1) return '';
  const lead = cmp.summary.find((t) => t.startsWith(`${cmp.runs[0].name}:`)) ?? cmp.summary[0];
  return lead ? `<p id="answer"><strong>${esc(lead)}</strong></p>` : '';
}

/** Configs that never produced a run (a failed checkpoint, a crash), each with the evidence of why. */
export function skippedHtml(cmp: Comparison): string {
  return cmp.validity.skipped
    .map((s) => {
      const evidence = s.evidence?.length ? `<pre>${esc(s.evidence.join('\n'))}</pre>` : '';
      return `<div class="skipped-config"><strong>${esc(s.name)}</strong> did not run: ${esc(s.reason)}${evidence}</div>`;
    })
    .join('');
}

export function firstScreenHtml(cmp: Comparison): string {
  const vs = validitySection(cmp);
  const doubts = distrustLines(cmp);
  const status = `<p><span class="status-badge status-${vs.status}">${esc(vs.headline)}</span>${doubts.length || vs.status !== 'valid' ? ' <a href="#validity">why</a>' : ''}</p>`;
  const doubtList = doubts.length
    ? `<ul class="doubts" id="doubts">${doubts.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>`
    : '';
  const chart = chartSpecs(cmp).find((c) => c.id === 'output-throughput');
  const figure = chart
    ? `<figure class="chart" id="first-chart">${renderChartSvg({ ...chart, width: 560, height: 340 })}</figure>`
    : '';
  const left = `<div class="answer">${status}${answerTable(cmp)}${singleRunAnswer(cmp)}${doubtList}${skippedHtml(cmp)}</div>`;
  return `<section id="first-screen">${left}${figure}</section>`;
}
