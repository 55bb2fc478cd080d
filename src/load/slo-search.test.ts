import { describe, expect, it } from 'vitest';
import { SLO_PRESETS } from '../plan/slo-presets.js';
import { type SloSearchSpec, searchSlo } from './slo-search.js';

const spec: SloSearchSpec = {
  start: 1,
  precision: 0.25,
  min: 0.1,
  max: 1000,
  growth: 2,
  maxProbes: 30,
  integer: false,
};
/** A server whose SLO share falls off a cliff above `capacity`. */
const cliff = (capacity: number) => async (v: number) => (v <= capacity ? 1 : 0.5);

describe('SLO search', () => {
  it('brackets upward then bisects to within the precision of the capacity', async () => {
    const r = await searchSlo(spec, 0.99, cliff(5.3));
    expect(r.stoppedBy).toBe('precision');
    expect(r.best).not.toBeNull();
    expect(r.firstFail).not.toBeNull();
    expect(r.best as number).toBeLessThanOrEqual(5.3);
    expect(r.firstFail as number).toBeGreaterThan(5.3);
    expect((r.firstFail as number) - (r.best as number)).toBeLessThanOrEqual(0.25);
    expect(r.probes.slice(0, 4).map((p) => p.value)).toEqual([1, 2, 4, 8]);
    expect(r.probes.every((p) => p.passed === p.value <= 5.3)).toBe(true);
  });

  it('brackets downward when the first probe fails', async () => {
    const r = await searchSlo(spec, 0.99, cliff(0.3));
    expect(r.probes[0]).toMatchObject({ value: 1, passed: false });
    expect(r.best as number).toBeLessThanOrEqual(0.3);
    expect(r.firstFail as number).toBeGreaterThan(0.3);
  });

  it('says so when even the minimum fails, or the maximum passes', async () => {
    expect((await searchSlo(spec, 0.99, cliff(0.01))).stoppedBy).toBe('min-failed');
    const top = await searchSlo({ ...spec, max: 16 }, 0.99, cliff(100));
    expect(top).toMatchObject({ stoppedBy: 'max-passed', best: 16, firstFail: null });
  });

  it('probes integers only for concurrency and stops at a bracket of width 1', async () => {
    const r = await searchSlo({ ...spec, integer: true, min: 1, precision: 1 }, 0.99, cliff(11));
    expect(r.probes.every((p) => Number.isInteger(p.value))).toBe(true);
    expect(r).toMatchObject({ best: 11, firstFail: 12 });
  });

  it('stops at the probe cap', async () => {
    const r = await searchSlo({ ...spec, maxProbes: 3 }, 0.99, cliff(1e9));
    expect(r.probes).toHaveLength(3);
    expect(r.stoppedBy).toBe('max-probes');
  });

  it('judges the share against the required share', async () => {
    const r = await searchSlo({ ...spec, max: 4 }, 0.9, async () => 0.95);
    expect(r.best).toBe(4);
  });

  it('carries the MLPerf interactive constraints for Llama 2 70B', () => {
    expect(SLO_PRESETS['mlperf-llama2-70b-interactive']).toMatchObject({
      ttftMs: 450,
      tpotMs: 40,
      share: 0.99,
    });
  });
});
