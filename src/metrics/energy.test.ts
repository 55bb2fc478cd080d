import { describe, expect, it } from 'vitest';
import { energyOverWindow, type PowerSample } from './energy.js';

const series = (
  gpu: number,
  watts: (tMs: number) => number,
  fromMs: number,
  toMs: number,
  stepMs: number,
) => {
  const out: PowerSample[] = [];
  for (let t = fromMs; t <= toMs; t += stepMs) out.push({ tMs: t, gpu, powerW: watts(t) });
  return out;
};
const window = (startMs: number, endMs: number) => ({ startMs, endMs, durationS: (endMs - startMs) / 1000 });

describe('energy per output token', () => {
  it('is constant power × window over tokens, summed over GPUs, with the window edges interpolated', () => {
    const samples = [...series(0, () => 250, 0, 5000, 1000), ...series(1, () => 100, 300, 5300, 1000)];
    const r = energyOverWindow({ samples }, window(1500, 3700), 440);
    expect(r.energy.joules).toBeCloseTo(350 * 2.2, 9);
    expect(r.energyPerTokenJ).toBeCloseTo((350 * 2.2) / 440, 9);
    expect(r.energy).toMatchObject({ gpus: 2, reason: null, meanPowerW: 350 });
  });

  it('integrates a ramp by the trapezoid rule', () => {
    // 100 W at 0 s rising 10 W/s: over [1 s, 3 s] the energy is 2 s × 120 W
    const r = energyOverWindow(
      { samples: series(0, (t) => 100 + t / 100, 0, 4000, 500) },
      window(1000, 3000),
      24,
    );
    expect(r.energy.joules).toBeCloseTo(240, 9);
    expect(r.energyPerTokenJ).toBeCloseTo(10, 9);
  });

  it('scales by the mean power of the covered part, and refuses under half coverage', () => {
    const samples = series(0, () => 200, 2000, 4000, 1000);
    const most = energyOverWindow({ samples }, window(1000, 4000), 100);
    expect(most.energy.coveredS).toBeCloseTo(2, 9);
    expect(most.energy.joules).toBeCloseTo(600, 9);
    const little = energyOverWindow({ samples }, window(0, 5000), 100);
    expect(little.energyPerTokenJ).toBeNull();
    expect(little.energy.reason).toMatch(/cover 2\.00 s of the 5\.00 s/);
  });

  it('is null with the reason without power data, power.draw placeholders or output tokens', () => {
    expect(energyOverWindow({ reason: 'nvidia-smi not found' }, window(0, 1000), 10).energy.reason).toBe(
      'nvidia-smi not found',
    );
    const na = series(0, () => 0, 0, 3000, 1000).map((s) => ({ ...s, powerW: null }));
    const r = energyOverWindow({ samples: na }, window(0, 3000), 10);
    expect(r.energyPerTokenJ).toBeNull();
    expect(r.energy.reason).toMatch(/power\.draw not reported/);
    const noTok = energyOverWindow({ samples: series(0, () => 50, 0, 3000, 1000) }, window(0, 3000), 0);
    expect(noTok.energyPerTokenJ).toBeNull();
    expect(noTok.energy.joules).toBeCloseTo(150, 9);
  });
});
