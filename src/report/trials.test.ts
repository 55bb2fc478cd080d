import { describe, expect, it } from 'vitest';
import type { LoadedRun } from '../results/layout.js';
import { compareRuns } from './compare.js';
import { renderText } from './render-text.js';
import { buildRun, type FixtureLevel, type FixtureRun, specs } from './test-support.js';

// Repeated trials of one config: each trial of a level is a level of its own, tagged with its trial.
// The trials of run "b" differ from each other far more than their requests do (a host slowdown in one),
// as two back-to-back runs of one config can: resampling requests alone calls that a difference,
// resampling trials then requests does not.

function loaded(run: FixtureRun): LoadedRun {
  const { manifest, summary, records } = buildRun(run);
  return { name: run.name, dir: `/fixture/${run.name}`, manifest, summary, records, warnings: [] };
}

const trialSpecs = (f: number) => specs(80, { e2eMs: 1000 * f, ttftMs: 100 * f, tokens: 64, width: 0.05 });

/** One level at concurrency 4, one trial per factor (e2e scaled by it), 80 requests each. */
function trials(name: string, factors: number[]): FixtureRun {
  const levels: FixtureLevel[] = factors.map((f, t) => ({
    concurrency: 4,
    specs: trialSpecs(f),
    summaryExtra: { trial: t + 1 },
  }));
  return { name, levels, config: { model: 'm' } };
}

/** The same requests as one level measured once. */
function flat(name: string, factors: number[]): FixtureRun {
  return { name, levels: [{ concurrency: 4, specs: factors.flatMap(trialSpecs) }], config: { model: 'm' } };
}

describe('compare with repeated trials', () => {
  const a = loaded(trials('a', [1, 1.02, 0.98]));
  const b = loaded(trials('b', [0.9, 1.05, 1.0]));
  const cmp = compareRuns([a, b], { iterations: 1000 });

  it('pools each run’s trials into one level with every trial’s requests and their summed windows', () => {
    expect(cmp.levels).toHaveLength(1);
    const row = cmp.levels[0];
    expect(row.label).toBe('c=4');
    expect(row.cells.ttft_p50.map((c) => c.n)).toEqual([240, 240]);
    const windows = a.summary.levels.reduce((s, l) => s + l.windowS, 0);
    const tokens = 3 * 80 * 64;
    expect(row.cells.output_throughput[0].value).toBeCloseTo(tokens / windows, 6);
    expect(cmp.runs.map((r) => r.trials)).toEqual([3, 3]);
    expect(cmp.bootstrap.resamples).toBe('trials-then-requests');
  });

  it('puts the variance between trials inside the interval, so one slow trial is no verdict', () => {
    const cell = cmp.levels[0].cells.output_throughput[1];
    expect(cell.significant).toBe(false);
    expect(cmp.verdicts.find((v) => v.metric === 'output_throughput')?.text).toMatch(
      /^b and a: no meaningful difference in output throughput/,
    );
    // the same requests measured once each: the request bootstrap alone finds a "difference"
    const once = compareRuns([loaded(flat('a', [1, 1.02, 0.98])), loaded(flat('b', [0.9, 1.05, 1.0]))], {
      iterations: 1000,
    });
    expect(once.bootstrap.resamples).toBe('requests');
    const c = once.levels[0].cells.output_throughput[1];
    expect(c.ratio).toBeCloseTo(cell.ratio as number, 1);
    expect(c.significant).toBe(true);
  });

  it('says what the intervals cover, in the summary and under the tables', () => {
    const text = renderText(cmp, { color: false });
    expect(cmp.summary).toContainEqual(
      expect.stringMatching(/^Intervals resample trials, then requests within them/),
    );
    expect(text).toContain('resamples of trials, then of requests within them');
  });
});

describe('compare with one trial per run', () => {
  /** One level of `n` requests of `e2eMs`: a short window when few and fast. */
  const one = (name: string, e2eMs: number, n: number): LoadedRun =>
    loaded({
      name,
      config: { model: 'm' },
      levels: [{ concurrency: 4, specs: specs(n, { e2eMs, ttftMs: e2eMs / 10, tokens: 16 }) }],
    });

  it('says the intervals cover request-to-request noise only', () => {
    const cmp = compareRuns([one('a', 500, 80), one('b', 400, 80)], { iterations: 300 });
    expect(cmp.bootstrap.resamples).toBe('requests');
    expect(cmp.summary.join(' ')).toContain('the intervals cover request-to-request noise only');
    expect(cmp.levels[0].usable).toBe(true);
  });

  it('gives a level measured for under 1 s no verdict, and says why', () => {
    // 20 requests of 40 ms over 4 streams: a 0.2 s window, like a fast matrix level
    const cmp = compareRuns([one('a', 50, 20), one('b', 40, 20)], { iterations: 300 });
    const row = cmp.levels[0];
    expect(row.usable).toBe(false);
    expect(row.flags.a[0]).toMatchObject({ flag: 'short-window' });
    expect(row.flags.a[0].reason).toMatch(
      /^measured window 0\.\d\d s < 1 s in one trial: too short for a verdict/,
    );
    expect(cmp.verdicts).toEqual([]);
    expect(renderText(cmp, { color: false })).toContain('excluded (short-window: all runs)');
  });
});
