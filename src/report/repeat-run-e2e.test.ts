import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompareJson, type SameConfigRuns, sameConfigRuns } from './test-support/same-config-runs.js';

// The same configuration run twice back to back against one SGLang simulator, through the real CLI, as
// a user would: the default, a fresh salt per run, sends unseen prompts, and with repeated trials the two
// runs read "no meaningful difference". (Replaying the same prompts: replay-cache-e2e.test.ts.)

let runs: SameConfigRuns;
beforeAll(async () => {
  runs = await sameConfigRuns('bg-repeat-');
});
afterAll(() => runs.close());

describe('the same config run twice against one SGLang simulator', () => {
  it('by default sends unseen prompts: no cache share, and with trials "no meaningful difference"', async () => {
    const first = await runs.bench('fresh-1', ['--trials', '3']);
    const second = await runs.bench('fresh-2', ['--trials', '3']);
    const cmp = JSON.parse(await runs.compare([first, second], 'json')) as CompareJson;
    expect(cmp.cache).toHaveLength(2 * 2 * 3);
    expect(cmp.cache.every((r) => r.share !== null && r.share < 0.1)).toBe(true);
    const reasons = cmp.validity.runs.flatMap((r) => Object.values(r.levels).flatMap((l) => l.reasons));
    expect(reasons.map((r) => r.check)).not.toContain('prefix-cache');
    const throughput = cmp.verdicts.find((v) => v.metric === 'output_throughput');
    expect(throughput?.text).toMatch(/^fresh-2 and fresh-1: no meaningful difference in output throughput/);
    expect(cmp.summary).toContainEqual(expect.stringMatching(/^Intervals resample trials, then requests/));
  }, 300_000);
});
