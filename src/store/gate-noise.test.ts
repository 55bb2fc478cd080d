// The gate's noise band: a short or noisy history gives a wide band, a steady one a narrow band, and a
// value is a change only outside the band and beyond the minimum effect.

import { describe, expect, it } from 'vitest';
import { judgeByBand, noiseBand, tQuantile995 } from './gate-noise.js';

const opts = { higherIsBetter: true, minEffect: 0.02 };

describe('the gate noise band', () => {
  it('needs two positive values to measure a spread', () => {
    expect(noiseBand([])).toBeNull();
    expect(noiseBand([100])).toBeNull();
    expect(noiseBand([100, 0, Number.NaN])).toBeNull();
  });

  it('is wider for a noisier history and for a shorter one', () => {
    const steady = noiseBand([100, 101, 99, 100, 100.5]);
    const noisy = noiseBand([100, 120, 85, 110, 90]);
    const short = noiseBand([100, 101]);
    expect(steady && noisy && short).toBeTruthy();
    expect((noisy?.high ?? 0) - 1).toBeGreaterThan((steady?.high ?? 0) - 1);
    expect((short?.high ?? 0) - 1).toBeGreaterThan((steady?.high ?? 0) - 1);
    expect(tQuantile995(1)).toBeGreaterThan(tQuantile995(4));
    expect(tQuantile995(11)).toBe(tQuantile995(10));
  });

  it('calls a drop outside a steady band a regression, and the same drop inside a noisy band no change', () => {
    const steady = noiseBand([100, 101, 99, 100, 100.5]);
    const noisy = noiseBand([100, 140, 70, 120, 80]);
    if (!steady || !noisy) throw new Error('bands expected');
    expect(judgeByBand(80, steady, opts).outcome).toBe('regression');
    expect(judgeByBand(120, steady, opts).outcome).toBe('improvement');
    expect(judgeByBand(80, noisy, opts).outcome).toBe('no change');
    expect(judgeByBand(80, steady, { ...opts, higherIsBetter: false }).outcome).toBe('improvement');
  });

  it('never calls a change below the minimum effect, however steady the history', () => {
    const flat = noiseBand([100, 100, 100, 100, 100.0001]);
    if (!flat) throw new Error('band expected');
    expect(judgeByBand(99, flat, opts).outcome).toBe('no change');
    expect(judgeByBand(97, flat, opts).outcome).toBe('regression');
  });
});
