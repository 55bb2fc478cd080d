import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import type { RunSummary } from '../metrics/summary.js';
import { fixedSimForFile } from '../sim/testing/fixed-sim.js';

// One tail rule everywhere: for the same run, the bench table, summary.csv, report text, JSON, CSV and
// the HTML chart show TTFT p99 where the level's samples support it (≥662) with the same value, and
// withhold it where they do not (the short level of the same run), through the real CLI.

const { url, out } = fixedSimForFile('bg-tails-', { ttftMs: 10, itlMs: 2 });

const cell = (csvLine: string, header: string[], column: string) =>
  csvLine.split(',')[header.indexOf(column)];

describe('one tail rule in every format', () => {
  it('shows p99 only where ≥662 samples support it, with the same value in every format', async () => {
    // c=32 reaches 700 requests well inside 10 s; c=1 (about 25 requests/s) is stopped by the duration with far fewer
    const args = ['--url', url(), '--concurrency', '1,32', '--requests', '700', '--duration', '10s'];
    const bench = await runCli([
      'bench',
      ...args,
      '--input-tokens',
      '16',
      '--output-tokens',
      '4',
      '--name',
      'tails',
      '--out',
      out,
    ]);
    expect(bench.code, bench.stderr).toBe(0);
    const dir = join(out, readdirSync(out)[0]);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary;
    const [short, long] = summary.levels;
    expect(short.ttftMs?.count).toBeLessThan(662);
    expect(long.ttftMs?.count).toBe(700);
    const p99 = long.ttftMs?.percentiles.p99 as number;

    // the bench table: n/a for c=1, the value for c=32
    const row = (label: string) => bench.stdout.split('\n').find((l) => l.startsWith(`${label} `)) ?? '';
    expect(row('c=1').split(/\s+/)[6]).toBe('n/a');
    expect(Number(row('c=32').split(/\s+/)[6])).toBeCloseTo(p99, 1);

    // summary.csv: empty and named in `withheld` for c=1, the value for c=32
    const [head, ...rows] = readFileSync(join(dir, 'summary.csv'), 'utf8').trim().split('\n');
    const header = head.split(',');
    expect(cell(rows[0], header, 'ttftMs_p99')).toBe('');
    expect(rows[0]).toMatch(/ttftMs p99 n\/a \(\d+ samples\)/);
    expect(Number(cell(rows[1], header, 'ttftMs_p99'))).toBeCloseTo(p99, 3);

    // report: text and JSON (tables and chart points) and CSV, from one run directory
    const files = join(out, 'report');
    const text = await runCli(['report', dir, '--out', files]);
    expect(text.code, text.stderr).toBe(0);
    // one run: one table of metrics by level (c=1, c=32), a withheld percentile n/a with its footnote
    expect(text.stdout).toMatch(new RegExp(`^TTFT p99 \\(ms\\) +n/a +${Number(p99.toPrecision(3))}$`, 'm'));
    expect(text.stdout).toMatch(/^n\/a: .*p99 n\/a \(\d+ samples; ≥662 needed, up to p\d+ supported\)/m);
    const json = JSON.parse(readFileSync(join(files, 'compare.json'), 'utf8'));
    expect(
      json.levels.map((l: { cells: { ttft_p99: { value: number | null }[] } }) => l.cells.ttft_p99[0].value),
    ).toEqual([null, p99]);
    expect(json.series[0].points.map((p: { ttftP99Ms: number | null }) => p.ttftP99Ms)).toEqual([null, p99]);
    const csv = await runCli(['report', dir, '--format', 'csv']);
    const p99Rows = csv.stdout.split('\n').filter((l) => l.includes(',ttft_p99,'));
    expect(p99Rows[0]).toMatch(/,c=1,tails,true,,/);
    expect(p99Rows[1]).toContain(`,c=32,tails,true,${p99},`);

    // the HTML chart draws the p99 point of c=32 only, and says why c=1 has none
    const html = readFileSync(join(files, 'report.html'), 'utf8');
    expect(html).toContain(
      'TTFT p50 (solid) and p99 (dashed) vs load (p99 only where ≥662 samples support it)',
    );
    const svg = readFileSync(join(files, 'charts', 'ttft.svg'), 'utf8');
    expect(svg.match(/<title>tails p99: /g)).toHaveLength(1);
    expect(svg).toMatch(/<title>tails p99: [\d.,]+ at 32\.0( \([^)]*\))?<\/title>/);
  }, 240_000);
});
