import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { planSchema } from '../plan/schema.js';
import { resolveConfig } from './config-plan.js';
import { buildDemoPlan } from './demo-plan.js';
import { estimateMatrix, renderPlanPreview, timeScaleOf } from './estimate.js';

const plan = planSchema.parse({
  name: 'p',
  workload: { output_tokens: { fixed: 100 } },
  load: { kind: 'concurrency', levels: [1, 10], requests: 20 },
  configs: [
    { name: 'a', url: 'http://127.0.0.1:1', launch: { command: 'server --time-scale 10' } },
    { name: 'b', url: 'http://127.0.0.1:2', launch: { command: 'server' } },
  ],
});
const configs = plan.configs!.map((c) => resolveConfig(plan, c, 'p.yaml'));

describe('plan preview estimate', () => {
  it('derives level durations from level sizes, output tokens and the simulator time scale', () => {
    const [a, b] = estimateMatrix({ plan, configs });
    // b: ready 60 s + 2 s checkpoint and teardown + c=1: 20 requests × 100 tokens × 20 ms = 40 s + c=10: 2 waves × 2 s = 4 s
    expect(b.estimatedS).toBeCloseTo(106, 6);
    expect(a.estimatedS).toBeCloseTo(12.4, 6);
    expect(b.requestsToRun).toBe(40);
    expect(timeScaleOf(['x', '--time-scale', 'oops'])).toBe(1);
  });

  it('prefers a previous run’s measured figures and skips completed levels', () => {
    const [a] = estimateMatrix({
      plan,
      configs,
      completedLevels: { a: [0] },
      measured: { a: { readyS: 3, levelS: { 1: 7 } } },
    });
    expect(a.levelsToRun).toEqual([1]);
    expect(a.estimatedS).toBe(12);
    expect(a.basis).toBe('previous run');
    const text = renderPlanPreview(plan, [a]).join('\n');
    expect(text).toContain('a: levels 10; 20 requests; ~12 s (previous run)');
  });

  it('with trials counts every launch: N rounds × K configs, each trial a launch and its levels', () => {
    const trials = planSchema.parse({ ...plan, load: { ...plan.load, trials: 3 } });
    const [a, b] = estimateMatrix({ plan: trials, configs });
    expect(a.launches).toBe(3);
    expect(a.levelsToRun).toEqual([0, 1, 2, 3, 4, 5]);
    expect(a.requestsToRun).toBe(6 * 20);
    // three times the one-trial estimate: every trial launches, waits ready and sweeps again
    expect(a.estimatedS).toBeCloseTo(3 * 12.4, 6);
    expect(b.estimatedS).toBeCloseTo(3 * 106, 6);
    const text = renderPlanPreview(trials, [a, b]).join('\n');
    expect(text).toContain('trials: 3 rounds × 2 configs = 6 launches;');
    expect(text).toContain('a: levels 1, 10 × 3 trials; 3 launches; 120 requests');
    // resumed after trial 1 and half of trial 2 of a: the rest, by trial, and the launches left
    const [left] = estimateMatrix({ plan: trials, configs, completedLevels: { a: [0, 1, 2] } });
    expect(left).toMatchObject({ launches: 2, levelsToRun: [3, 4, 5] });
    const resumed = renderPlanPreview(trials, [left, b]).join('\n');
    expect(resumed).toContain('= 6 launches (5 still to run)');
    expect(resumed).toContain('a: levels 10 (trial 2); 1, 10 (trial 3); 2 launches; 60 requests');
  });

  it('states an SLO search as at most max_probes probes, never the default levels', () => {
    const search = planSchema.parse({
      ...plan,
      load: {
        kind: 'slo_search',
        requests: 16,
        slo_search: { over: 'concurrency', start: 2, precision: 2, share: 0.9, max_probes: 5 },
      },
      slo: { ttft_ms: 2000, tpot_ms: 200 },
    });
    const est = estimateMatrix({ plan: search, configs, completedLevels: { b: [0, 1, 2] } });
    // each probe sized for the p90 floor (64): 64 / 0.9 → 72, plus 2 × 2 for ramp-up and drain
    expect(est[0]).toMatchObject({ searchProbesAtMost: 5, requestsToRun: 5 * 76 });
    // a (time scale 10): ready 6 s + 2 s + 5 probes at concurrency 2, each 38 waves × 100 tokens × 2 ms
    expect(est[0].estimatedS).toBeCloseTo(6 + 2 + 5 * 38 * 0.2, 6);
    expect(est[1]).toMatchObject({ searchProbesAtMost: 0, estimatedS: 0 });
    const text = renderPlanPreview(search, est).join('\n');
    expect(text).toContain('SLO search over concurrency from 2');
    expect(text).toContain('at most 5 probes per config');
    expect(text).toContain('a: at most 5 probes; at most 380 requests');
    expect(text).toContain('b: SLO search already completed');
    expect(text).not.toMatch(/levels|req\/s/);
  });

  it('estimates the demo near what it takes (about 70–75 s with its two rounds), not far above it (issue 24 item 14)', async () => {
    const demo = await buildDemoPlan({
      benchgateArgv: ['/usr/bin/node', '/x/dist/cli/main.js'],
      output: tmpdir(),
    });
    const est = estimateMatrix({
      plan: demo,
      configs: demo.configs!.map((c) => resolveConfig(demo, c, 'demo')),
    });
    const total = est.reduce((a, e) => a + e.estimatedS, 0);
    // two rounds of four configs (the drifted one estimated in both), each visit its stated 1 s load, the
    // start, checkpoint and teardown, and ~4.3 s of levels: measured 72 s on a 2-core machine
    expect(total).toBeGreaterThan(60);
    expect(total).toBeLessThan(95);
  });
});
