import { describe, expect, it } from 'vitest';
import type { BenchgateError } from '../core/errors.js';
import type { LoadedRun } from '../results/layout.js';
import { compareRuns } from './compare.js';
import { renderText } from './render-text.js';
import { buildRun, type FixtureRun, KNOWN_RUN_NOISE, specs } from './test-support.js';

const N = 60;
const levels = [1, 2, 4, 8, 16];

function loaded(run: FixtureRun): LoadedRun {
  const { manifest, summary, records } = buildRun(run);
  return { name: run.name, dir: `/fixture/${run.name}`, manifest, summary, records, warnings: [] };
}

/** e2e per level scaled by factor(c): throughput ratio to baseline is exactly 1/factor. */
function scaled(name: string, factor: (c: number) => number, extra: Partial<FixtureRun> = {}): FixtureRun {
  return {
    name,
    config: {
      model: 'story-moe',
      tp_size: 8,
      'speculative.topk': name === 'baseline' ? 0 : 1,
      'sglang.port': 30000,
    },
    varies: ['speculative'],
    ...extra,
    levels: levels.map((c) => ({
      concurrency: c,
      specs: specs(N, { e2eMs: 1000 * factor(c), ttftMs: 100 * factor(c), tokens: 64 }),
    })),
  };
}

const baseline = scaled('baseline', () => 1);
const topk4 = scaled('eagle3-topk4', (c) => (c >= 2 ? 1.3 : 1));
const topk1 = scaled('eagle3-topk1-v2', (c) => (c <= 4 ? 0.8 : c === 8 ? 1 : 1.25));

describe('compareRuns', () => {
  const cmp = compareRuns([loaded(baseline), loaded(topk4), loaded(topk1)], {
    iterations: 400,
    runNoise: KNOWN_RUN_NOISE,
  });

  it('aligns levels and reports the exact throughput ratio with a CI that brackets it', () => {
    expect(cmp.levels.map((l) => l.label)).toEqual(['c=1', 'c=2', 'c=4', 'c=8', 'c=16']);
    const at4 = cmp.levels[2].cells.output_throughput;
    const fast = at4.find((c) => c.run === 'eagle3-topk1-v2')!;
    expect(fast.ratio).toBeCloseTo(1.25, 9);
    expect(fast.ci!.low).toBeLessThan(1.25);
    expect(fast.ci!.high).toBeGreaterThan(1.25);
    expect(fast.significant).toBe(true);
    const same = cmp.levels[3].cells.output_throughput.find((c) => c.run === 'eagle3-topk1-v2')!;
    expect(same.ratio).toBeCloseTo(1, 9);
    expect(same.significant).toBe(false);
    expect(at4.find((c) => c.run === 'baseline')!.ratio).toBeNull();
  });

  it('says in words that top-k 4 is slower from concurrency 2 on, with its numbers', () => {
    const v = cmp.verdicts.find((x) => x.run === 'eagle3-topk4' && x.metric === 'output_throughput')!;
    expect(v.text).toMatch(
      /^eagle3-topk4 has lower output throughput than baseline at every concurrency >= 2 \(-23% at \d+, CI -2\d% to -2\d%\)\. Also request, input and total token throughput: the same ratio here \(fixed prompt and output lengths\)\.$/,
    );
    // fixed lengths: one verdict speaks for the four throughputs, none of them gets its own
    expect(v.family).toEqual([
      'output_throughput',
      'request_throughput',
      'input_throughput',
      'total_throughput',
    ]);
    const own = cmp.verdicts.filter((x) => x.run === 'eagle3-topk4' && /throughput/.test(x.metric));
    expect(own.map((x) => x.metric)).toEqual(['output_throughput']);
  });

  it('finds the crossover where top-k 1 stops beating the baseline', () => {
    const v = cmp.verdicts.find((x) => x.run === 'eagle3-topk1-v2' && x.metric === 'output_throughput')!;
    expect(v.text).toContain(
      'eagle3-topk1-v2 is faster than baseline (output throughput) up to concurrency 4, slower from 16 (+25% at 4, CI',
    );
    const x = cmp.crossovers.find((c) => c.run === 'eagle3-topk1-v2' && c.metric === 'output_throughput')!;
    expect(x.from.value).toBe(4);
    expect(x.to.value).toBe(16);
    expect(x.direction).toBe('better-to-worse');
  });

  it('shows the terminal only the output-throughput crossovers and points to the rest', () => {
    const text = renderText(cmp, { color: false });
    const section = text.split('Crossovers\n')[1].split('\n\n')[0];
    const latency = cmp.crossovers.filter((x) => x.metric !== 'output_throughput').length;
    expect(latency).toBeGreaterThan(0);
    expect(section).toContain('eagle3-topk1-v2 stops beating baseline on output throughput');
    expect(section).not.toMatch(/on (median|p99) /);
    expect(section).toContain(`(${latency} more on latency metrics: --format markdown, json or html)`);
    expect(text).toMatch(/Varied on purpose: speculative\.topk; per-run values/);
  });

  it('words a clean split as "up to X, slower from Y", as for open-loop rate levels', () => {
    const rate = (name: string, f: (r: number) => number): LoadedRun => {
      const run = loaded({
        name,
        levels: [1, 2, 4].map((c) => ({
          concurrency: c,
          specs: specs(N, { e2eMs: 1000 * f(c), ttftMs: 100 * f(c) }),
        })),
      });
      for (const l of run.summary.levels)
        l.level = { kind: 'rate', value: l.level.value / 2, maxConcurrency: 64 };
      return run;
    };
    const c = compareRuns([rate('base', () => 1), rate('v2', (r) => (r <= 2 ? 0.8 : 1.25))], {
      iterations: 200,
      runNoise: KNOWN_RUN_NOISE,
    });
    expect(c.levels.map((l) => l.label)).toEqual([
      '0.5 req/s (cap 64)',
      '1 req/s (cap 64)',
      '2 req/s (cap 64)',
    ]);
    const v = c.verdicts.find((x) => x.metric === 'output_throughput')!;
    expect(v.text).toMatch(
      /^v2 is faster than base \(output throughput\) up to rate 1 req\/s, slower from 2 req\/s \(\+25% at 0\.5, CI .*; -20% at 2, CI .*\)\.$/,
    );
  });

  it('finds crossovers between two non-baseline runs too', () => {
    const a = scaled('a', () => 1.1);
    const b = scaled('b', (c) => (c <= 2 ? 0.8 : 1.4));
    const c = compareRuns([loaded(baseline), loaded(a), loaded(b)], {
      iterations: 200,
      runNoise: KNOWN_RUN_NOISE,
    });
    const pair = c.crossovers.filter((x) => x.versus === 'a');
    expect(pair).toHaveLength(1);
    expect(pair[0]).toMatchObject({ run: 'b', metric: 'output_throughput', direction: 'better-to-worse' });
    expect([pair[0].from.value, pair[0].to.value]).toEqual([2, 4]);
    expect(pair[0].text).toMatch(
      /^b stops beating a on output throughput between concurrency 2 \(\+38% at 2/,
    );
  });

  it('orders verdicts most important first: significant throughput findings lead', () => {
    expect(cmp.verdicts[0].metric).toBe('output_throughput');
    const weights = cmp.verdicts.map((v) => v.weight);
    expect([...weights].sort((a, b) => b - a)).toEqual(weights);
  });

  it('is reproducible: the same inputs give identical CIs', () => {
    const again = compareRuns([loaded(baseline), loaded(topk4), loaded(topk1)], {
      iterations: 400,
      runNoise: KNOWN_RUN_NOISE,
    });
    expect(again.levels).toEqual(cmp.levels);
  });

  it('warns about configuration differences outside the varied keys, not about the varied ones', () => {
    const tp4 = scaled('tp4', () => 1, {
      config: { model: 'story-moe', tp_size: 4, 'speculative.topk': 1, 'sglang.port': 30001 },
    });
    const c = compareRuns([loaded(baseline), loaded(tp4)], { iterations: 50 });
    expect(c.comparabilityWarnings).toHaveLength(1);
    expect(c.comparabilityWarnings[0]).toContain('tp_size: 4 in tp4, 8 in baseline');
    expect(c.comparabilityWarnings[0]).not.toContain('speculative.topk');
    expect(c.configDiff.find((d) => d.key === 'speculative.topk')!.expected).toBe(true);
    // where a server listens is not what it computes: a different port is no difference at all
    expect(c.configDiff.find((d) => d.key === 'sglang.port')).toBeUndefined();
    expect(cmp.comparabilityWarnings).toEqual([]);
  });

  it('names a difference once by its normalised key, and takes varied keys from compare --varies', () => {
    const plain = (name: string, tp: number) =>
      scaled(name, () => 1, {
        config: { model: 'story-moe', tp_size: tp, 'sglang.tp_size': tp, 'speculative.topk': 1 },
        varies: [],
      });
    const c = compareRuns([loaded(plain('a', 8)), loaded(plain('b', 4))], { iterations: 50 });
    expect(c.comparabilityWarnings).toHaveLength(1);
    expect(c.comparabilityWarnings[0]).toContain('tp_size: 4 in b, 8 in a');
    expect(c.comparabilityWarnings[0]).not.toContain('sglang.tp_size');
    expect(c.comparabilityWarnings[0]).toContain('compare --varies');
    const declared = compareRuns([loaded(plain('a', 8)), loaded(plain('b', 4))], {
      iterations: 50,
      varies: ['tp_size'],
    });
    expect(declared.comparabilityWarnings).toEqual([]);
  });

  it('excludes client-limited levels from verdicts and marks them', () => {
    const limited: FixtureRun = {
      ...topk1,
      name: 'limited',
      levels: topk1.levels.map((l) =>
        l.concurrency === 16
          ? {
              ...l,
              summaryExtra: {
                client: {
                  eventLoopDelayP99Ms: 80,
                  cpuPercentOfOneCore: 99,
                  clientLimited: true,
                  reason: 'event-loop lag',
                },
              },
            }
          : l,
      ),
    };
    const c = compareRuns([loaded(baseline), loaded(limited)], {
      iterations: 100,
      runNoise: KNOWN_RUN_NOISE,
    });
    const row = c.levels.find((l) => l.level.value === 16)!;
    expect(row.usable).toBe(false);
    expect(row.flags.limited[0].flag).toBe('client-limited');
    const v = c.verdicts.find((x) => x.metric === 'output_throughput')!;
    expect(v.text).toContain('higher output throughput than baseline at every concurrency <= 4');
    expect(c.crossovers.filter((x) => x.metric === 'output_throughput')).toEqual([]);
  });

  it('reports acceptance length with a CI from per-request verify steps', () => {
    const spec: FixtureRun = {
      name: 'spec',
      levels: [
        { concurrency: 1, specs: specs(N, { e2eMs: 1000, ttftMs: 100, tokens: 64, acceptance: 3.2 }) },
      ],
    };
    const base: FixtureRun = {
      name: 'base',
      levels: [{ concurrency: 1, specs: specs(N, { e2eMs: 1000, ttftMs: 100, tokens: 64, acceptance: 1 }) }],
    };
    const c = compareRuns([loaded(base), loaded(spec)], { iterations: 100 });
    const cell = c.levels[0].cells.acceptance_length.find((x) => x.run === 'spec')!;
    expect(cell.value).toBeCloseTo(64 / 20, 9);
    expect(cell.ratio).toBeCloseTo(3.2, 9);
    expect(cell.significant).toBe(true);
  });

  it('rejects runs with no common level and an unknown baseline with one sentence each', () => {
    const a: FixtureRun = {
      name: 'a',
      levels: [{ concurrency: 1, specs: specs(5, { e2eMs: 10, ttftMs: 1 }) }],
    };
    const b: FixtureRun = {
      name: 'b',
      levels: [{ concurrency: 4, specs: specs(5, { e2eMs: 10, ttftMs: 1 }) }],
    };
    expect(() => compareRuns([loaded(a), loaded(b)])).toThrowError(
      /share no load level.*a has c=1; b has c=4/,
    );
    try {
      compareRuns([loaded(a)], { baseline: 'nope' });
    } catch (e) {
      expect((e as BenchgateError).code).toBe('BG_E_USAGE');
      expect((e as Error).message).toContain('found "nope"');
    }
  });
});
