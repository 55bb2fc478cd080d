// The gate's checks judged against run-to-run noise: the history's band when the store holds enough earlier
// runs, both sides' trials otherwise, and inconclusive (never a regression) when the noise is unknown or a
// side is suspect for host timing noise; a level the comparison cannot use is skipped with its reason.

import { describe, expect, it } from 'vitest';
import type { Cell, Comparison, LevelRow, MetricId } from '../report/types.js';
import { type GateEvidence, gateChecks } from './gate-checks.js';

/** One comparison level where the run's output throughput is `ratio` × the reference's, CI excluding 1. */
function comparison(ratio: number, usable = true): Comparison {
  const cell: Cell = {
    run: 'new',
    value: 100 * ratio,
    ratio,
    ci: { low: ratio - 0.05, high: ratio + 0.05 },
    significant: true,
    n: 32,
  };
  const row = {
    level: { kind: 'concurrency', value: 8 },
    label: 'c=8',
    flags: usable ? {} : { new: [{ flag: 'client-limited', reason: 'Client-limited: 100% CPU.' }] },
    usable,
    validity: {},
    cells: { output_throughput: [cell] },
  } as unknown as LevelRow;
  return { levels: [row] } as unknown as Comparison;
}

function evidence(o: Partial<GateEvidence> & { earlier?: number[]; own?: number } = {}): GateEvidence {
  const metric: MetricId = 'output_throughput';
  return {
    runName: 'new',
    metrics: [metric],
    minEffect: 0.02,
    minHistory: 3,
    history: new Map([
      [
        metric,
        {
          earlier: new Map([['c=8', o.earlier ?? []]]),
          run: new Map(o.own === undefined ? [] : [['c=8', o.own]]),
        },
      ],
    ]),
    trials: false,
    hostNoise: new Map(),
    timeS: new Map([['c=8', 12.5]]),
    ...o,
  };
}

describe('gate checks', () => {
  it('calls a significant drop inconclusive when neither history nor trials give the run-to-run noise', () => {
    const [c] = gateChecks(comparison(0.7), evidence({ earlier: [100, 101] }));
    expect(c.outcome).toBe('inconclusive');
    expect(c.noise).toBe('unknown');
    expect(c.reason).toContain('run-to-run noise unknown: 2 of the 3 earlier runs');
    expect(c.timeS).toBe(12.5);
  });

  it('trusts the interval when both sides have repeated trials', () => {
    const [c] = gateChecks(comparison(0.7), evidence({ trials: true }));
    expect(c.outcome).toBe('regression');
    expect(c.noise).toBe('trials');
  });

  it('judges against the history band once the store holds enough earlier runs', () => {
    const steady = { earlier: [100, 101, 99, 100] };
    const [drop] = gateChecks(comparison(0.7), evidence({ ...steady, own: 70 }));
    expect(drop.outcome).toBe('regression');
    expect(drop.noise).toBe('history');
    expect(drop.history?.k).toBe(4);
    expect(drop.text).toContain('vs the mean of 4 earlier runs');
    // a history as noisy as the change: the same drop is within the noise
    const [noisy] = gateChecks(comparison(0.7), evidence({ earlier: [100, 60, 140, 75], own: 70 }));
    expect(noisy.outcome).toBe('no change');
  });

  it('never calls a regression at a level suspect for host timing noise the noise estimate did not see', () => {
    const reason = 'Timing noise: the host delayed the client.';
    const every = new Map([['c=8', { reason, everyTrial: true }]]);
    const [trials] = gateChecks(comparison(0.7), evidence({ trials: true, hostNoise: every }));
    expect(trials.outcome).toBe('inconclusive');
    expect(trials.reason).toContain('suspect for host timing noise: Timing noise');
    const some = new Map([['c=8', { reason, everyTrial: false }]]);
    const [history] = gateChecks(
      comparison(0.7),
      evidence({ earlier: [100, 101, 99, 100], own: 70, hostNoise: some }),
    );
    expect(history.outcome).toBe('inconclusive');
  });

  it('keeps a regression when trials resampled delayed and undelayed trials of the level on each side', () => {
    const some = new Map([['c=8', { reason: 'Timing noise: trial 1.', everyTrial: false }]]);
    const [c] = gateChecks(comparison(0.7), evidence({ trials: true, hostNoise: some }));
    expect(c.outcome).toBe('regression');
  });

  it('skips a level the comparison cannot use, with the reason', () => {
    const [c] = gateChecks(comparison(0.7, false), evidence({ trials: true }));
    expect(c.outcome).toBe('skipped');
    expect(c.reason).toContain('new: Client-limited: 100% CPU.');
  });
});
