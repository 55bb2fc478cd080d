import { describe, expect, it } from 'vitest';
import { SLO_PRESETS } from '../plan/slo-presets.js';
import { type ProbeOutcome, type SloSearchSpec, searchSlo } from './slo-search.js';

const spec: SloSearchSpec = {
  start: 1,
  precision: 0.25,
  min: 0.1,
  max: 1000,
  growth: 2,
  maxProbes: 30,
  integer: false,
};
const out = (outcome: ProbeOutcome) => ({ share: outcome === 'pass' ? 1 : 0.5, outcome });
/** A server that holds every load up to `capacity` and none above it. */
const cliff = (capacity: number) => async (v: number) => out(v <= capacity ? 'pass' : 'fail');

describe('SLO search', () => {
  it('brackets upward then bisects to within the precision of the capacity', async () => {
    const r = await searchSlo(spec, cliff(5.3));
    expect(r.stoppedBy).toBe('precision');
    expect(r.best as number).toBeLessThanOrEqual(5.3);
    expect(r.firstFail as number).toBeGreaterThan(5.3);
    expect((r.firstFail as number) - (r.best as number)).toBeLessThanOrEqual(0.25);
    expect(r.probes.slice(0, 4).map((p) => p.value)).toEqual([1, 2, 4, 8]);
    expect(r.probes.every((p) => p.passed === p.value <= 5.3)).toBe(true);
    expect(r.nonMonotonic).toEqual([]);
  });

  it('brackets downward when the first probe fails', async () => {
    const r = await searchSlo(spec, cliff(0.3));
    expect(r.probes[0]).toMatchObject({ value: 1, passed: false, outcome: 'fail' });
    expect(r.best as number).toBeLessThanOrEqual(0.3);
    expect(r.firstFail as number).toBeGreaterThan(0.3);
  });

  it('says so when even the minimum fails, or the maximum passes', async () => {
    expect((await searchSlo(spec, cliff(0.01))).stoppedBy).toBe('min-failed');
    const top = await searchSlo({ ...spec, max: 16 }, cliff(100));
    expect(top).toMatchObject({ stoppedBy: 'max-passed', best: 16, firstFail: null });
  });

  it('probes integers only for concurrency and stops at a bracket of width 1', async () => {
    const r = await searchSlo({ ...spec, integer: true, min: 1, precision: 1 }, cliff(11));
    expect(r.probes.every((p) => Number.isInteger(p.value))).toBe(true);
    expect(r).toMatchObject({ best: 11, firstFail: 12 });
  });

  it('stops at the probe cap', async () => {
    const r = await searchSlo({ ...spec, maxProbes: 3 }, cliff(1e9));
    expect(r.probes).toHaveLength(3);
    expect(r.stoppedBy).toBe('max-probes');
  });

  it('runs an inconclusive probe once more, and ends when it is inconclusive again, keeping the bracket', async () => {
    const r = await searchSlo(spec, async (v) => out(v < 4 ? 'pass' : 'inconclusive'));
    expect(r.probes.map((p) => [p.value, p.outcome])).toEqual([
      [1, 'pass'],
      [2, 'pass'],
      [4, 'inconclusive'],
      [4, 'inconclusive'],
    ]);
    expect(r).toMatchObject({ stoppedBy: 'inconclusive', best: 2, firstFail: null });
  });

  it('goes on when the second try of an inconclusive probe concludes', async () => {
    let tries = 0;
    const r = await searchSlo({ ...spec, precision: 1 }, async (v) => {
      if (v === 4 && tries++ === 0) return out('inconclusive');
      return out(v <= 5 ? 'pass' : 'fail');
    });
    expect(r.probes.slice(2, 4).map((p) => [p.value, p.outcome, p.repeat])).toEqual([
      [4, 'inconclusive', false],
      [4, 'pass', true],
    ]);
    expect(r).toMatchObject({ best: 5, firstFail: 6, stoppedBy: 'precision' });
  });

  it('confirms the answer with a second probe before it stops', async () => {
    const r = await searchSlo(spec, cliff(5.3));
    const last = r.probes.at(-1)!;
    expect(last).toMatchObject({ value: r.best, outcome: 'pass', repeat: true });
    expect(r.probes.filter((p) => p.repeat)).toHaveLength(1);
  });

  it('brackets on the load each probe offered, not the nominal one, and confirms the answer', async () => {
    // a schedule that offers 10% less than asked: nominal 55 offers 49.5, below a capacity of 50
    const r = await searchSlo({ ...spec, start: 40, precision: 1 }, async (v) => ({
      ...out(v * 0.9 <= 50 ? 'pass' : 'fail'),
      offered: v * 0.9,
    }));
    expect(r.best as number).toBeLessThanOrEqual(50);
    expect(r.firstFail as number).toBeGreaterThan(50);
    expect((r.firstFail as number) - (r.best as number)).toBeLessThanOrEqual(1);
    expect(r.probes.some((p) => p.offered === r.best && p.passed)).toBe(true);
    expect(r.probes.some((p) => p.offered === r.firstFail && !p.passed)).toBe(true);
    expect(r.confirmed).toBe(true);
    expect(r.probes.at(-1)).toMatchObject({ outcome: 'pass', repeat: true });
  });

  it('ends on a confirmation rather than asking again for a nominal load it already probed', async () => {
    // every nominal load offers the same 30 req/s: the bracket cannot narrow by asking for more
    const r = await searchSlo({ ...spec, start: 20 }, async (v) => ({
      ...out(v < 45 ? 'pass' : 'fail'),
      offered: v < 45 ? 30 : 31,
    }));
    expect(r.stoppedBy).toBe('stalled');
    expect(new Set(r.probes.filter((p) => !p.repeat).map((p) => p.value)).size).toBe(
      r.probes.filter((p) => !p.repeat).length,
    );
  });

  it('moves the answer down when the confirmation fails (a pass, then a fail, at one load)', async () => {
    const seen = new Map<number, number>();
    const r = await searchSlo({ ...spec, precision: 0.5 }, async (v) => {
      const n = seen.get(v) ?? 0;
      seen.set(v, n + 1);
      if (v === 5.5) return out(n === 0 ? 'pass' : 'fail'); // a lucky first probe
      return out(v <= 5 ? 'pass' : 'fail');
    });
    expect(r.probes.map((p) => `${p.value}:${p.outcome}`)).toEqual([
      '1:pass',
      '2:pass',
      '4:pass',
      '8:fail',
      '6:fail',
      '5:pass',
      '5.5:pass',
      '5.5:fail',
      '5:pass',
    ]);
    expect(r.nonMonotonic).toEqual([{ failedAt: 5.5, passedAt: 5.5 }]);
    expect(r).toMatchObject({ best: 5, firstFail: 5.5, stoppedBy: 'precision' });
  });

  it('re-probes both ends of a pass above a fail, and answers below the lowest fail', async () => {
    const seen = new Map<number, number>();
    const r = await searchSlo({ ...spec, precision: 1 }, async (v) => {
      const n = seen.get(v) ?? 0;
      seen.set(v, n + 1);
      if (v === 5 || v === 6) return out(n === 0 ? 'pass' : 'fail'); // both pass once, then fail
      return out(v <= 4 ? 'pass' : 'fail');
    });
    // 6 passes, 7 fails, the confirmation of 6 fails; 5 passes, its confirmation fails: 5 failed below the pass at 6
    expect(r.nonMonotonic).toEqual([
      { failedAt: 6, passedAt: 6 },
      { failedAt: 5, passedAt: 6 },
    ]);
    expect(r.probes.filter((p) => p.value === 6).map((p) => [p.outcome, p.repeat])).toEqual([
      ['pass', false],
      ['fail', true],
    ]);
    expect(r).toMatchObject({ best: 4, firstFail: 5 });
    expect(r.probes.at(-1)).toMatchObject({ value: 4, outcome: 'pass', repeat: true });
  });

  it('carries the MLPerf interactive constraints for Llama 2 70B', () => {
    expect(SLO_PRESETS['mlperf-llama2-70b-interactive']).toMatchObject({
      ttftMs: 450,
      tpotMs: 40,
      share: 0.99,
    });
  });
});
