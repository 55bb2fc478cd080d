import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../records/request-record.js';
import type { LoadedRun } from '../results/layout.js';
import { compareRuns } from './compare.js';
import type { RunNoise } from './run-noise.js';
import { buildRun, type FixtureLevel, type FixtureRun, KNOWN_RUN_NOISE, specs } from './test-support.js';

// Verdicts that know run-to-run noise: one trial per run is no confident verdict without a measured
// spread between runs; interleaved rounds are compared as pairs; a level a run measured under host
// timing noise gives no latency verdict, and a verdict names its caveats in its own sentence.

function loaded(run: FixtureRun): LoadedRun {
  const { manifest, summary, records } = buildRun(run);
  return { name: run.name, dir: `/fixture/${run.name}`, manifest, summary, records, warnings: [] };
}

/** One level at concurrency 4 of 200 requests whose E2E is e2eMs (TTFT a tenth of it). */
const once = (name: string, e2eMs: number, extra: Partial<FixtureLevel> = {}): LoadedRun =>
  loaded({
    name,
    config: { model: 'm' },
    levels: [{ concurrency: 4, specs: specs(200, { e2eMs, ttftMs: e2eMs / 10, width: 0.1 }), ...extra }],
  });

const throughputVerdict = (cmp: ReturnType<typeof compareRuns>) =>
  cmp.verdicts.find((v) => v.metric === 'output_throughput')?.text ?? '';

describe('one trial per run', () => {
  const a = once('a', 1000);
  const b = once('b', 800);

  it('without a run-to-run noise estimate states the change and its size but draws no confident verdict', () => {
    const cmp = compareRuns([a, b], { iterations: 300 });
    const cell = cmp.levels[0].cells.output_throughput[1];
    expect(cell.significant).toBe(true);
    expect(cell.runNoise).toBe('unknown');
    const text = throughputVerdict(cmp);
    expect(text).toMatch(
      /^b vs a: higher output throughput \(\+25% at 4, CI .* from request-to-request noise only\), but/,
    );
    expect(text).toContain('run-to-run noise is unknown with one trial per run: no confident verdict');
    expect(cmp.verdicts.every((v) => !/has (higher|lower)/.test(v.text))).toBe(true);
    // the headline says so first, and how to get one
    expect(cmp.summary[0]).toMatch(/^No confident verdict: .*--trials 3/);
    expect(cmp.summary.join('\n')).toContain('no confident verdict (run-to-run noise unknown)');
  });

  it('with a spread measured between earlier runs draws the verdict, its interval widened by that spread', () => {
    const cmp = compareRuns([a, b], { iterations: 300, runNoise: KNOWN_RUN_NOISE });
    const cell = cmp.levels[0].cells.output_throughput[1];
    expect(cell.runNoise).toEqual({ source: 'fixture: 20 runs, 0.1% apart' });
    expect(throughputVerdict(cmp)).toMatch(/^b has higher output throughput than a at concurrency 4/);
    expect(cmp.summary.join('\n')).toContain('widened by a run-to-run noise estimate (fixture: 20 runs');
    // a spread as large as the change: no verdict, the interval now reaches 1
    const noisy: RunNoise = {
      host: { source: 'store: 3 runs', runs: 3, logSd: { output_throughput: 0.15 } },
    };
    const wide = compareRuns([a, b], { iterations: 300, runNoise: noisy, metrics: ['output_throughput'] });
    const w = wide.levels[0].cells.output_throughput[1];
    expect(w.ci!.low).toBeLessThan(1);
    expect(throughputVerdict(wide)).toMatch(/^b and a: no meaningful difference/);
  });

  it('calls a change below the minimum effect no meaningful difference, even with the noise unknown', () => {
    // requests alike to 0.2%: a 0.5% change is significant to the request bootstrap, but below 2%
    const tight = (name: string, e2eMs: number) =>
      once(name, e2eMs, { specs: specs(200, { e2eMs, ttftMs: e2eMs / 10, width: 0.002 }) });
    const cmp = compareRuns([tight('a', 1000), tight('same', 995)], {
      iterations: 300,
      metrics: ['output_throughput'],
    });
    const cell = cmp.levels[0].cells.output_throughput[1];
    expect(cell.runNoise).toBe('unknown');
    expect(cell.significant).toBe(true);
    expect(cmp.summary.join('\n')).toContain('c=4: no meaningful difference');
    expect(cmp.summary.join('\n')).not.toContain('No confident verdict');
  });

  it('uses a per-run estimate only when both sides have one', () => {
    const est = KNOWN_RUN_NOISE.host!;
    const cmp = compareRuns([a, b], { iterations: 300, runNoise: { byRun: { a: est } } });
    expect(cmp.levels[0].cells.output_throughput[1].runNoise).toBe('unknown');
  });
});

describe('a level suspect for host timing noise', () => {
  const noise = {
    summaryExtra: {
      client: {
        eventLoopDelayP99Ms: 80,
        cpuPercentOfOneCore: 40,
        clientLimited: false,
        timingNoise: 'event-loop lag p99 80 ms',
      },
    },
  };

  it('gives no latency verdict, and the throughput verdict names the caveat inline', () => {
    const cmp = compareRuns([once('a', 1000), once('b', 800, noise)], {
      iterations: 300,
      runNoise: KNOWN_RUN_NOISE,
    });
    const ttft = cmp.verdicts.find((v) => v.metric === 'ttft_p50' || v.family?.includes('ttft_p50'));
    expect(ttft?.text).toMatch(
      /^b vs a, median TTFT: no verdict\. No latency verdict at c=4: host timing noise/,
    );
    for (const v of cmp.verdicts.filter((x) => x.metric.includes('p50') || x.metric.includes('p99')))
      expect(v.text).not.toMatch(/has (higher|lower)/);
    expect(throughputVerdict(cmp)).toMatch(
      /^b has higher output throughput .*\. Caveat, SUSPECT: c=4 host timing noise \(b\)\./,
    );
  });
});

describe('interleaved trials', () => {
  // three rounds on a host whose speed drifts a lot between rounds; b is 10% slower in each round
  const drift = [1, 1.5, 2.2];
  const ROUND_MS = 200_000;

  /** Moves a record by `ms` (onto a later stretch of the same clock). */
  const shifted = (r: RequestRecord, ms: number): RequestRecord => ({
    ...r,
    scheduledMs: r.scheduledMs + ms,
    sentMs: r.sentMs + ms,
    headersMs: r.headersMs === null ? null : r.headersMs + ms,
    chunkMs: r.chunkMs.map((t) => t + ms),
    firstContentMs: r.firstContentMs === null ? null : r.firstContentMs + ms,
    endMs: r.endMs + ms,
  });

  /** Trial t of the run starts at `start(t)` ms. */
  function rounds(name: string, slower: number, start: (t: number) => number): LoadedRun {
    const run = loaded({
      name,
      config: { model: 'm' },
      levels: drift.map((f, t) => ({
        concurrency: 4,
        specs: specs(80, { e2eMs: 1000 * f * slower, ttftMs: 100 * f * slower, width: 0.05 }),
        summaryExtra: { trial: t + 1 },
      })),
    });
    return { ...run, records: run.records.map((r) => shifted(r, start(r.levelIndex))) };
  }

  it('compares rounds as pairs, so drift shared by a round cancels and a 10% slowdown is found', () => {
    const a = rounds('a', 1, (t) => 2 * t * ROUND_MS);
    const b = rounds('b', 1.1, (t) => (2 * t + 1) * ROUND_MS);
    const cmp = compareRuns([a, b], { iterations: 500, metrics: ['output_throughput'] });
    expect(cmp.bootstrap.resamples).toBe('paired-rounds');
    const cell = cmp.levels[0].cells.output_throughput[1];
    expect(cell.resampling).toBe('paired-rounds');
    expect(cell.significant).toBe(true);
    expect(cell.ci!.low).toBeLessThan(1 / 1.1);
    expect(cell.ci!.high).toBeGreaterThan(1 / 1.1);
    expect(throughputVerdict(cmp)).toMatch(/^b has lower output throughput than a/);
    expect(cmp.summary.join('\n')).toContain('Intervals resample interleaved rounds as pairs');
  });

  it('falls back to unpaired trials when the runs were not interleaved, and the drift hides the change', () => {
    // all of a's trials, then all of b's: no round holds one of each
    const a = rounds('a', 1, (t) => t * ROUND_MS);
    const b = rounds('b', 1.1, (t) => (3 + t) * ROUND_MS);
    const cmp = compareRuns([a, b], { iterations: 500, metrics: ['output_throughput'] });
    expect(cmp.bootstrap.resamples).toBe('trials-then-requests');
    const cell = cmp.levels[0].cells.output_throughput[1];
    expect(cell.resampling).toBe('trials-then-requests');
    expect(cell.significant).toBe(false);
    expect(throughputVerdict(cmp)).toMatch(/^b and a: no meaningful difference/);
  });
});
