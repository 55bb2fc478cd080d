import { describe, expect, it } from 'vitest';
import { readUnreadable, readValue } from '../core/read-result.js';
import type { LoadedRun } from '../results/layout.js';
import type { SloSearchRecord } from '../results/slo-search-record.js';
import { compareRuns } from './compare.js';
import { searchVerdict, sloSearchView } from './slo-search-model.js';
import { buildRun, specs } from './test-support.js';

const record = (over: Partial<SloSearchRecord>): SloSearchRecord => ({
  over: 'concurrency',
  requiredShare: 0.99,
  slo: { ttft_ms: 2000, tpot_ms: 200 },
  preset: 'mlperf-llama2-70b-server',
  precision: 1,
  best: 4,
  firstFail: 5,
  probes: [
    { value: 2, share: 1, passed: true },
    { value: 8, share: 0.4, passed: false },
    { value: 4, share: 1, passed: true },
    { value: 5, share: 0.9, passed: false },
  ],
  stoppedBy: 'precision',
  ...over,
});

function run(name: string, probes: number[], search: LoadedRun['sloSearch']): LoadedRun {
  const built = buildRun({
    name,
    levels: probes.map((c) => ({ concurrency: c, specs: specs(12, { e2eMs: 500, ttftMs: 50 }) })),
  });
  return { name, dir: `/fixture/${name}`, ...built, warnings: [], sloSearch: search };
}

const view = (name: string, over: Partial<SloSearchRecord>) =>
  sloSearchView(run(name, [2], readValue(record(over))))!;

const interval = (low: number, high: number, estimate = (low + high) / 2) => ({
  estimate,
  low,
  high,
  lowCensored: false,
  highCensored: false,
  confidence: 0.95,
  iterations: 1000,
  probes: 6,
});

describe("SLO search verdicts by the answers' intervals", () => {
  it('calls two searches whose brackets are disjoint but intervals overlap no meaningful difference', () => {
    const a = view('second', { over: 'rate', best: 60, firstFail: 61, interval: interval(52, 63, 58) });
    const b = view('first', { over: 'rate', best: 55, firstFail: 56, interval: interval(50, 61, 56) });
    expect(searchVerdict(a, b)).toBe(
      'second holds 60 req/s under the SLOs, first 55: no meaningful difference (95% intervals 52–63 and 50–61 overlap).',
    );
  });

  it('names the change at the fitted answers when the intervals do not overlap, with a censored end as a bound', () => {
    const a = view('x', {
      best: 14,
      firstFail: null,
      interval: { ...interval(13, 16, 15), highCensored: true },
    });
    const b = view('b', { best: 9, firstFail: 10, interval: interval(8, 10, 9) });
    expect(searchVerdict(a, b)).toBe(
      'x holds concurrency 14 under the SLOs, b 9 (+67% at the fitted answers; 95% intervals 13–≥ 16 and 8–10 do not overlap).',
    );
  });

  it('puts the interval and the confirmation in the answer, and falls back to brackets for older files', () => {
    const v = view('x', { interval: interval(3.5, 4.8, 4.2), confirmed: true });
    expect(v.status === 'read' && v.answer).toBe(
      'highest concurrency meeting the SLOs for 99% of requests: concurrency 4 (lowest failing probe: concurrency 5; 95% interval concurrency 3.5–4.8 over 6 probes; confirmed by a second probe)',
    );
    const old = view('y', { best: 8, firstFail: 9 });
    expect(searchVerdict(old, view('b', { interval: interval(3, 5) }))).toContain(
      'brackets 8–9 and 4–5 do not overlap',
    );
  });
});

describe('SLO search verdicts', () => {
  it('states the found loads with the change when the brackets are disjoint', () => {
    expect(searchVerdict(view('x', { best: 8, firstFail: 9 }), view('b', {}))).toBe(
      'x holds concurrency 8 under the SLOs, b 4 (+100%; brackets 8–9 and 4–5 do not overlap).',
    );
  });

  it('calls touching brackets disjoint (the lower one failed where the other passed), and overlapping ones no difference', () => {
    expect(searchVerdict(view('x', { best: 5, firstFail: 6 }), view('b', {}))).toContain('(+25%;');
    expect(
      searchVerdict(view('x', { best: 4, firstFail: 6 }), view('b', { best: 5, firstFail: 7 })),
    ).toContain('no difference beyond the search precision (brackets 4–6 and 5–7 overlap)');
  });

  it('handles a search that never saturated and one where even the minimum failed', () => {
    const never = view('x', { best: 1024, firstFail: null, stoppedBy: 'max-passed' });
    const none = view('b', { best: null, firstFail: 1, stoppedBy: 'min-failed' });
    expect(never.status === 'read' && never.stoppedText).toContain('at least that');
    expect(searchVerdict(never, none)).toBe(
      'x holds concurrency 1024 under the SLOs, b at no probed load (brackets ≥ 1024 and < 1 do not overlap).',
    );
    expect(searchVerdict(none, none)).toContain('no difference beyond the search precision');
  });

  it('draws no verdict across different SLOs, different search axes or an unreadable outcome', () => {
    expect(searchVerdict(view('x', { slo: { ttft_ms: 500 } }), view('b', {}))).toContain(
      'no SLO-search verdict (different SLOs',
    );
    expect(searchVerdict(view('x', { over: 'rate' }), view('b', {}))).toContain(
      'x searched rate, b concurrency',
    );
    const broken = sloSearchView(run('x', [2], readUnreadable('slo-search.json is not valid JSON', '{')))!;
    expect(searchVerdict(broken, view('b', {}))).toBe(
      "x vs b: no SLO-search verdict (x's slo-search.json is unreadable).",
    );
  });

  it('compares two searches that share no probe instead of refusing for want of a common level', () => {
    const a = run('base', [2, 4], readValue(record({ best: 2, firstFail: 4 })));
    const b = run('x', [3, 6], readValue(record({ best: 6, firstFail: null, stoppedBy: 'max-passed' })));
    const cmp = compareRuns([a, b], { iterations: 50 });
    expect(cmp.sloSearch?.verdicts).toEqual([
      'x holds concurrency 6 under the SLOs, base 2 (+200%; brackets ≥ 6 and 2–4 do not overlap).',
    ]);
    expect(cmp.sloSearch?.runs.map((r) => r.run)).toEqual(['base', 'x']);
    // without searches the same runs are refused: nothing shared to compare
    expect(() => compareRuns([{ ...a, sloSearch: undefined }, b])).toThrow(/share no load level/);
  });
});
