import { describe, expect, it } from 'vitest';
import { wantsColor } from '../core/color.js';
import type { LoadedRun } from '../results/layout.js';
import { renderChartSvg } from './chart-svg.js';
import { chartSpecs } from './charts.js';
import { compareRuns } from './compare.js';
import { renderCsv } from './render-csv.js';
import { renderHtml } from './render-html.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-markdown.js';
import { renderText } from './render-text.js';
import { buildRun, type FixtureRun, specs } from './test-support.js';

function loaded(run: FixtureRun): LoadedRun {
  const { manifest, summary, records } = buildRun(run);
  return { name: run.name, dir: `/fixture/${run.name}`, manifest, summary, records, warnings: [] };
}
const evil = '<script>alert(1)</script>|x';
const base: FixtureRun = {
  name: 'baseline',
  config: { model: 'm', tp_size: 8 },
  levels: [1, 4, 16].map((c) => ({ concurrency: c, specs: specs(30, { e2eMs: 1000, ttftMs: 100 }) })),
  checkpoint: {
    ok: true,
    checkedAt: '2026-01-01T00:00:00Z',
    findings: [{ id: 'healthy', title: `server says ${evil}`, status: 'pass', required: true, evidence: [] }],
  },
};
const fast: FixtureRun = {
  name: 'fast',
  config: { model: evil, tp_size: 8 },
  levels: [1, 4, 16].map((c) => ({
    concurrency: c,
    specs: specs(30, { e2eMs: 800, ttftMs: 80, acceptance: 2.5 }),
    summaryExtra: c === 16 ? { validity: { valid: false, reasons: ['server restarted'] } } : {},
  })),
};
const cmp = compareRuns([loaded(base), loaded(fast)], { iterations: 200 });

describe('renderers', () => {
  it('text: plain without colour, ANSI codes with it, flagged levels marked', () => {
    const plain = renderText(cmp, { color: false });
    expect(plain).not.toMatch(/\x1b\[/);
    expect(plain).toContain('Verdicts');
    expect(plain).toContain('excluded (invalid: fast)');
    // the validity section (comparability concerns included) comes first, before every number
    expect(plain.startsWith('Validity: ')).toBe(true);
    expect(plain.indexOf('Not apples to apples')).toBeGreaterThan(0);
    expect(plain.indexOf('Not apples to apples')).toBeLessThan(plain.indexOf('Verdicts'));
    expect(renderText(cmp, { color: true })).toMatch(/\x1b\[/);
  });

  it('text: colour only on a TTY without NO_COLOR', () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '' })).toBe(false);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
  });

  it('markdown: titles one run as a run report and several as a comparison against the baseline', () => {
    expect(renderMarkdown(compareRuns([loaded(base)], { iterations: 50 }))).toMatch(
      /^# Run report: baseline\n/,
    );
    expect(renderMarkdown(cmp)).toMatch(/^# Comparison: baseline baseline\n/);
  });

  it('markdown: escapes server strings so they cannot break the table or inject HTML', () => {
    const md = renderMarkdown(cmp);
    expect(md).not.toContain('<script>');
    expect(md).toContain('\\<script\\>');
    expect(md).toMatch(/^\| c=1 \|/m);
  });

  it('json: versioned schema with ratios and CIs, no non-finite numbers', () => {
    const doc = JSON.parse(renderJson(cmp));
    expect(doc.schema).toBe('benchgate.compare/1');
    const cell = doc.levels[0].cells.output_throughput[1];
    expect(cell.ratio).toBeCloseTo(1.25, 9);
    expect(cell.ci.low).toBeLessThan(1.25);
    expect(doc.series[1].points[0].acceptanceLength).toBeCloseTo(64 / 26, 9);
  });

  it('csv: one row per metric, level and run with a header', () => {
    const lines = renderCsv(cmp).trim().split('\n');
    expect(lines[0]).toBe(
      'validity,validity_reasons,metric,unit,level_kind,level_value,level_label,run,is_baseline,value,ratio_to_baseline,ci_low,ci_high,significant,requests,excluded_reason',
    );
    // data only: the one-screen summary is prose and stays out of the rows; one row per metric, level and run
    expect(cmp.summary.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.split(',')[2] === 'summary')).toEqual([]);
    expect(lines).toHaveLength(1 + cmp.metrics.length * 3 * 2);
    const invalidRow = lines.find((l) => l.includes(',output_throughput,tok/s,concurrency,16,c=16,fast,'));
    expect(invalidRow).toContain('invalid: fast');
    expect(invalidRow?.startsWith('invalid,')).toBe(true);
  });

  it('html: escapes every server and plan string', () => {
    const html = renderHtml(cmp);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Not apples to apples');
  });

  it('html: a script-free metric selector with one radio, one table and one CSS rule per metric, goodput included', () => {
    const html = renderHtml(cmp);
    expect(html).not.toMatch(/<script|onclick=|javascript:/i);
    expect(cmp.metrics).toContain('goodput');
    for (const m of cmp.metrics) {
      expect(html).toContain(`<input type="radio" name="metric" id="metric-${m}">`);
      expect(html).toContain(`<section class="metric" id="table-${m}">`);
      expect(html).toContain(`#metric-${m}:checked ~ .metric-tables #table-${m} { display: block; }`);
    }
    expect(html).toContain('id="metric-all" checked');
    expect(html.indexOf('id="validity"')).toBeLessThan(html.indexOf('id="metrics"'));
  });

  it('charts: every chart has axis labels with units, a legend entry per run, and hollow flagged points', () => {
    const specsList = chartSpecs(cmp);
    expect(specsList.map((s) => s.id)).toEqual([
      'output-throughput',
      'ttft',
      'tpot',
      'tradeoff',
      'acceptance-length',
    ]);
    const svg = renderChartSvg(specsList[0]);
    expect(svg).toContain('Output tokens/s');
    expect(svg).toContain('Concurrency (requests in flight)');
    expect(svg).toContain('>baseline</text>');
    expect(svg).toContain('>fast</text>');
    expect(svg).toContain('fill="#ffffff" stroke=');
  });
});
