// The interval on an SLO search's answer: the isotonic fit never lets the share rise with load, the
// crossing is read between the loads around it (or named a bound at either end), and the bootstrap over
// probes gives an interval that holds the estimate, is wider when the probes disagree, and is the same
// for the same seed.

import { describe, expect, it } from 'vitest';
import { antitonicFit, crossing, type SloPoint, sloAnswerInterval } from './slo-answer-interval.js';

const probe = (offered: number, share: number, samples = 700, sustained = true): SloPoint => ({
  offered,
  samples,
  met: Math.round(share * samples),
  sustained,
});

describe('the SLO answer interval', () => {
  it('fits a share that never rises with load, pooling a violation', () => {
    const fit = antitonicFit([
      { x: 10, y: 1, w: 1 },
      { x: 20, y: 0.9, w: 1 },
      { x: 30, y: 0.95, w: 1 },
      { x: 40, y: 0.5, w: 1 },
    ]);
    expect(fit.map((p) => p.y)).toEqual([1, 0.925, 0.925, 0.5]);
  });

  it('reads the crossing between the loads around it, and says when it is only a bound', () => {
    const fit = antitonicFit([
      { x: 10, y: 1, w: 1 },
      { x: 20, y: 0.98, w: 1 },
      { x: 30, y: 0.9, w: 1 },
    ]);
    expect(crossing(fit, 0.99)).toEqual({ value: 15, censored: null });
    expect(crossing(fit, 0.5)).toEqual({ value: 30, censored: 'high' });
    expect(crossing(fit, 1.01)).toEqual({ value: 10, censored: 'low' });
  });

  it('holds its estimate, counts an unsustained probe as a share of 0, and repeats for one seed', () => {
    const probes = [
      probe(40, 1),
      probe(50, 0.995),
      probe(55, 0.992),
      probe(60, 0.97),
      probe(80, 0.6, 700, false),
    ];
    const a = sloAnswerInterval(probes, 0.99, { iterations: 400, seed: 7 });
    expect(a.estimate).not.toBeNull();
    expect(a.low as number).toBeLessThanOrEqual(a.estimate as number);
    expect(a.high as number).toBeGreaterThanOrEqual(a.estimate as number);
    expect(a.estimate as number).toBeGreaterThan(55);
    expect(a.estimate as number).toBeLessThan(60);
    expect(a.probes).toBe(5);
    expect(sloAnswerInterval(probes, 0.99, { iterations: 400, seed: 7 })).toEqual(a);
  });

  it('is wider when the probes near the answer disagree', () => {
    const steady = [probe(40, 1), probe(50, 0.995), probe(55, 0.992), probe(60, 0.97), probe(70, 0.9)];
    const split = [
      probe(40, 1),
      probe(50, 0.97),
      probe(55, 0.999),
      probe(60, 0.97),
      probe(65, 0.999),
      probe(70, 0.9),
    ];
    const a = sloAnswerInterval(steady, 0.99, { iterations: 400 });
    const b = sloAnswerInterval(split, 0.99, { iterations: 400 });
    expect((b.high as number) - (b.low as number)).toBeGreaterThan((a.high as number) - (a.low as number));
  });

  it('has no answer without a probe, and a bound when every probe passed', () => {
    expect(sloAnswerInterval([], 0.99)).toMatchObject({ estimate: null, low: null, high: null, probes: 0 });
    const all = sloAnswerInterval([probe(10, 1), probe(20, 1)], 0.99, { iterations: 200 });
    expect(all.highCensored).toBe(true);
    expect(all.estimate).toBe(20);
  });
});
