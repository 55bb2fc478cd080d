// The story end to end: real sweeps of the three story configurations against the simulator (child
// processes, the story profile), then compareRuns. The test checks behaviour: every level is measured and
// compared, each speculative config's throughput cell carries a ratio and an interval, and the comparison
// says an answer or why not. Which way the verdicts point on this host is a measurement, not a test (host
// load can flip it): `npm run bench:story` prints measured ratios beside the performance model's.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STORY_LEVELS } from '../matrix/demo-plan.js';
import { storyModelRatio } from '../matrix/story-model.js';
import { sweepStory } from '../matrix/story-sweep.js';
import { KNOWN_RUN_NOISE } from './test-support.js';

const outDir = mkdtempSync(join(tmpdir(), 'bg-story-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const SPECULATIVE = ['eagle3-topk4-v1', 'eagle3-topk1-v2'];

describe('the story on the simulator', () => {
  it("picks levels where the performance model's answer is clear and turns with the load", () => {
    // pure arithmetic of the model: every level at least 10% either way, and the story's turns
    for (const name of SPECULATIVE)
      for (const c of STORY_LEVELS) expect(Math.abs(storyModelRatio(name, c) - 1)).toBeGreaterThan(0.1);
    const ahead = (name: string) => STORY_LEVELS.map((c) => storyModelRatio(name, c) > 1);
    expect(ahead('eagle3-topk1-v2')).toEqual([true, true, false]);
    expect(ahead('eagle3-topk4-v1')).toEqual([false, true, false]);
  });

  it('measures and compares the three configurations at every level, each change with its interval', async () => {
    const cmp = await sweepStory(outDir, { runNoise: KNOWN_RUN_NOISE });
    expect(cmp.runs.map((r) => r.name)).toEqual(['baseline', ...SPECULATIVE]);
    expect(cmp.levels.map((r) => r.level.value)).toEqual(STORY_LEVELS);
    for (const row of cmp.levels)
      for (const name of SPECULATIVE) {
        const cell = row.cells.output_throughput.find((c) => c.run === name);
        expect(cell?.value, `${name} ${row.label}`).toBeGreaterThan(0);
        expect(cell?.ratio, `${name} ${row.label}`).toBeGreaterThan(0);
        expect(cell?.ci?.low, `${name} ${row.label}`).toBeLessThanOrEqual(cell?.ratio as number);
        expect(cell?.ci?.high, `${name} ${row.label}`).toBeGreaterThanOrEqual(cell?.ratio as number);
      }
    // an answer per band, or the reason there is none, leads the summary; each speculative config is judged
    expect(cmp.summary.join('\n')).toMatch(
      /Best by output throughput \(vs baseline\)|No verdicts|no confident/,
    );
    for (const name of SPECULATIVE)
      expect(cmp.verdicts.some((v) => v.metric === 'output_throughput' && v.text.includes(name))).toBe(true);
  }, 150_000);
});
