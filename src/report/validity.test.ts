import { describe, expect, it } from 'vitest';
import type { LoadedRun } from '../results/layout.js';
import { renderFormat } from './artifacts.js';
import { compareRuns } from './compare.js';
import { buildRun, type FixtureRun, KNOWN_RUN_NOISE, specs } from './test-support.js';

const loaded = (r: FixtureRun): LoadedRun => ({
  ...buildRun(r),
  name: r.name,
  dir: `/x/${r.name}`,
  warnings: [],
});
const levels = (e2eMs: number, n = 200) =>
  [1, 4].map((c) => ({ concurrency: c, specs: specs(n, { e2eMs, ttftMs: e2eMs / 10 }) }));
const FORMATS = ['text', 'markdown', 'json', 'csv', 'html'] as const;
const render = (cmp: ReturnType<typeof compareRuns>, f: (typeof FORMATS)[number]) =>
  renderFormat(cmp, f, { color: false });

describe('validity in reports and comparisons', () => {
  it('marks a forced run invalid, first, in every format, and keeps it out of the verdicts', () => {
    const forced = loaded({
      name: 'forced',
      levels: levels(800),
      forced: { failedFindingIds: ['config.tp_size'] },
    });
    const cmp = compareRuns([loaded({ name: 'base', levels: levels(1000) }), forced], { iterations: 100 });
    expect(cmp.validity.status).toBe('invalid');
    expect(cmp.verdicts).toEqual([]);
    const text = render(cmp, 'text');
    expect(text.split('\n')[0]).toBe('Validity: INVALID');
    expect(text).toContain('Forced past a failed checkpoint (config.tp_size)');
    expect(render(cmp, 'markdown').split('\n')[2]).toBe('## Validity: INVALID');
    expect(Object.keys(JSON.parse(render(cmp, 'json')))[0]).toBe('validity');
    const csv = render(cmp, 'csv').trim().split('\n');
    expect(csv.filter((l) => l.includes(',forced,')).every((l) => l.startsWith('invalid,'))).toBe(true);
    const html = render(cmp, 'html');
    expect(html.indexOf('Validity: INVALID')).toBeLessThan(html.indexOf('Verdicts'));
    expect(html).toContain('class="validity validity-invalid"');
    const single = compareRuns([forced], { iterations: 50 });
    for (const f of FORMATS) expect(render(single, f), f).toMatch(/invalid|INVALID/);
    expect(render(single, 'text').split('\n')[0]).toBe('Validity: INVALID');
  });

  it('names the matrix configs that were skipped, and why, in every format', () => {
    const cmp = compareRuns([loaded({ name: 'base', levels: levels(1000) })], {
      iterations: 50,
      skipped: [
        { name: 'eagle3-drifted', reason: 'checkpoint failed: speculative.topk expected 4, found 1.' },
      ],
    });
    expect(cmp.validity.skipped).toHaveLength(1);
    for (const f of FORMATS)
      expect(render(cmp, f), f).toContain(
        f === 'csv' ? 'invalid,"skipped: checkpoint failed' : 'Config eagle3-drifted was skipped',
      );
  });

  it('says "no meaningful difference" for two runs of the same config', () => {
    const cmp = compareRuns(
      [loaded({ name: 'a', levels: levels(1000) }), loaded({ name: 'b', levels: levels(1000) })],
      {
        iterations: 200,
      },
    );
    expect(cmp.verdicts.length).toBeGreaterThan(0);
    for (const v of cmp.verdicts) expect(v.text).toContain('no meaningful difference');
  });

  it('calls a significant change below the minimum effect "no meaningful difference", above it a difference', () => {
    const tight = (e2eMs: number) => [
      { concurrency: 4, specs: specs(200, { e2eMs, ttftMs: 100, width: 0.002 }) },
    ];
    const runs = [loaded({ name: 'a', levels: tight(1000) }), loaded({ name: 'b', levels: tight(990) })];
    const small = compareRuns(runs, { iterations: 200, metrics: ['e2e_p50'] });
    expect(small.verdicts[0].text).toMatch(/^b and a: no meaningful difference in median end-to-end latency/);
    const strict = compareRuns(runs, {
      iterations: 200,
      metrics: ['e2e_p50'],
      minEffect: 0.005,
      runNoise: KNOWN_RUN_NOISE,
    });
    expect(strict.verdicts[0].text).toMatch(/^b has lower median end-to-end latency than a/);
  });

  it('never prints an empty Verdicts heading: says why there are none (issue 24 item 14)', () => {
    const a = loaded({ name: 'short', levels: levels(1000), workload: { input_tokens: { fixed: 128 } } });
    const b = loaded({ name: 'long', levels: levels(3000), workload: { input_tokens: { fixed: 4096 } } });
    const cmp = compareRuns([a, b], { iterations: 50, allowDifferentWorkloads: true, metrics: ['ttft_p99'] });
    expect(cmp.verdicts).toEqual([]);
    const text = render(cmp, 'text');
    expect(text).toMatch(/Verdicts\n {2}No verdicts: no metric shown has a value at a level the runs share/);
    expect(render(cmp, 'markdown')).toContain('_No verdicts: no metric shown has a value');
  });

  it('withholds verdicts for different workloads unless told the difference is the point', () => {
    const a = loaded({ name: 'long', levels: levels(1000), workload: { input_tokens: { fixed: 1024 } } });
    const b = loaded({ name: 'short', levels: levels(100), workload: { input_tokens: { fixed: 256 } } });
    const refused = compareRuns([a, b], { iterations: 100 });
    expect(refused.verdicts).toEqual([]);
    // each value under its own run's name
    expect(refused.verdictsWithheld).toContain(
      'workload.input_tokens: {"fixed":256} in short, {"fixed":1024} in long',
    );
    expect(render(refused, 'text')).toContain('No verdicts: the runs measured different workloads');
    const allowed = compareRuns([a, b], { iterations: 100, allowDifferentWorkloads: true });
    expect(allowed.verdicts.length).toBeGreaterThan(0);
    const declared = compareRuns(
      [
        a,
        loaded({
          name: 'short',
          levels: levels(100),
          workload: { input_tokens: { fixed: 256 } },
          varies: ['workload.*'],
        }),
      ],
      { iterations: 100 },
    );
    expect(declared.verdictsWithheld).toBeNull();
  });

  it('treats a normalised key as varied when its engine-native key is (sglang.* covers max_running_requests)', () => {
    const run = (name: string, mrr: number) =>
      loaded({
        name,
        levels: levels(1000),
        config: { max_running_requests: mrr, 'sglang.max_running_requests': mrr },
        varies: ['speculative.*', 'sglang.*'],
      });
    const cmp = compareRuns([run('base', 256), run('spec', 48)], { iterations: 50 });
    expect(cmp.comparabilityWarnings).toEqual([]);
    expect(cmp.configDiff.every((d) => d.expected)).toBe(true);
    expect(render(cmp, 'html')).not.toContain('Not apples to apples');
  });

  it('withholds a p99 the sample count cannot support and says how many samples it needs', () => {
    const cmp = compareRuns([loaded({ name: 'short', levels: levels(1000, 40) })], { iterations: 50 });
    const cell = cmp.levels[0].cells.ttft_p99[0];
    expect(cell.value).toBeNull();
    expect(cell.withheld).toMatch(/^p99 n\/a \(40 samples; ≥662 needed, up to p\d+ supported\)$/);
    expect(render(cmp, 'text')).toContain('p99 n/a (40 samples; ≥662 needed');
    expect(cmp.levels[0].cells.ttft_p50[0].value).not.toBeNull();
  });
});
