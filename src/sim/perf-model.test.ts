import { describe, expect, it } from 'vitest';
import { seededRng } from '../core/seeded-random.js';
import {
  cpuOverheadMs,
  decodeStepMs,
  drawAccepted,
  expertCoverage,
  type ModelConfig,
  targetForwardMs,
} from './perf-model.js';
import { BUILTIN_PROFILES } from './profiles.js';

const story = BUILTIN_PROFILES['story-moe-int4-8xpcie'];
const dense = BUILTIN_PROFILES['dense-8b-1gpu'];
const base = (overlap: boolean): ModelConfig => ({ tpSize: 8, overlap, spec: null });

describe('roofline performance model', () => {
  it('touches more MoE experts as more tokens pass through a layer, none for a dense model', () => {
    expect(expertCoverage(story, 1)).toBeCloseTo(story.expertActiveFraction);
    expect(expertCoverage(story, 64)).toBeGreaterThan(expertCoverage(story, 8));
    expect(expertCoverage(dense, 64)).toBe(0);
  });

  it('is memory-bound for a small decode batch and compute-bound for a large prefill', () => {
    const small = targetForwardMs(dense, { tpSize: 1, overlap: true, spec: null }, 1, 1000);
    expect(small.memMs).toBeGreaterThan(small.computeMs);
    const large = targetForwardMs(dense, { tpSize: 1, overlap: true, spec: null }, 8192, 0);
    expect(large.computeMs).toBeGreaterThan(large.memMs);
  });

  it('hides host overhead only with the overlap scheduler', () => {
    const on = decodeStepMs(story, base(true), 8, 8000);
    const off = decodeStepMs(story, base(false), 8, 8000);
    expect(off - on).toBeCloseTo(cpuOverheadMs(story, base(false), 8), 6);
  });

  it('draws acceptance reproducibly from a seed, bounded by the draft length, higher with top-k 4', () => {
    const mean = (topk: number, seed: number) => {
      const rng = seededRng(seed);
      let sum = 0;
      for (let i = 0; i < 2000; i++) {
        const a = drawAccepted(story, { numSteps: 3, topk, numDraftTokens: topk === 1 ? 4 : 8 }, rng);
        expect(a).toBeGreaterThanOrEqual(0);
        expect(a).toBeLessThanOrEqual(3);
        sum += a;
      }
      return sum / 2000;
    };
    expect(mean(1, 42)).toBe(mean(1, 42));
    expect(mean(4, 42)).toBeGreaterThan(mean(1, 42));
  });
});
