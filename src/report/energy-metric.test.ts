import { describe, expect, it } from 'vitest';
import type { LoadedRun } from '../results/layout.js';
import { compareRuns } from './compare.js';
import { renderText } from './render-text.js';
import { buildRun, type FixtureRun, KNOWN_RUN_NOISE, specs } from './test-support.js';

// energy_per_token as a comparable metric: --metric selects it, lower is better, and compare draws a
// verdict from it (mean power held fixed, the output rate resampled).

function withPower(run: FixtureRun, watts: number | null): LoadedRun {
  const { manifest, summary, records } = buildRun(run);
  for (const l of summary.levels) {
    const tokens = l.throughput.outputTokensPerS * l.windowS;
    l.energyPerTokenJ = watts === null ? null : (watts * l.windowS) / tokens;
    l.energy = {
      joules: watts === null ? null : watts * l.windowS,
      meanPowerW: watts,
      gpus: watts === null ? 0 : 8,
      coveredS: l.windowS,
      windowS: l.windowS,
      outputTokens: tokens,
      source: 'nvidia-smi power.draw',
      reason: watts === null ? 'nvidia-smi could not be started on local' : null,
    };
  }
  return { name: run.name, dir: `/fixture/${run.name}`, manifest, summary, records, warnings: [] };
}

const run = (name: string): FixtureRun => ({
  name,
  config: { model: 'm', tp_size: 8 },
  levels: [4, 8].map((c) => ({ concurrency: c, specs: specs(60, { e2eMs: 1000, ttftMs: 100, tokens: 64 }) })),
});

describe('energy per output token in a comparison', () => {
  it('calls 25% less power at the same token rate a significant improvement, lower being better', () => {
    // one trial each: the verdict needs a run-to-run noise estimate, given here as measured elsewhere
    const cmp = compareRuns([withPower(run('h100'), 4000), withPower(run('h200'), 3000)], {
      iterations: 200,
      metrics: ['energy_per_token'],
      runNoise: KNOWN_RUN_NOISE,
    });
    expect(cmp.metrics).toEqual(['energy_per_token']);
    const cell = cmp.levels[0].cells.energy_per_token.find((c) => c.run === 'h200')!;
    expect(cell.ratio).toBeCloseTo(0.75, 9);
    expect(cell.significant).toBe(true);
    expect(cmp.verdicts.map((v) => v.metric)).toContain('energy_per_token');
    expect(cmp.verdicts.find((v) => v.metric === 'energy_per_token')?.text).toMatch(
      /GPU energy per output token/,
    );
    expect(renderText(cmp, { color: false })).toMatch(/Energy\/token \(J\/tok\), lower is better/);
  });

  it('shows a run without power data as n/a, not as a value', () => {
    const cmp = compareRuns([withPower(run('gpu'), 4000), withPower(run('no-gpu'), null)], {
      iterations: 50,
      metrics: ['energy_per_token'],
    });
    expect(renderText(cmp, { color: false })).toMatch(/n\/a \(no GPU power data\)/);
    expect(cmp.verdicts.filter((v) => v.metric === 'energy_per_token')).toEqual([]);
  });
});
