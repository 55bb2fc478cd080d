import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompareJson, type SameConfigRuns, sameConfigRuns } from './test-support/same-config-runs.js';

// The same configuration run twice back to back against one SGLang simulator, through the real CLI, as
// a user would, replaying the first run's prompts (the same salt): served from the simulator's prefix
// cache, the second run must read SUSPECT naming the cache, with the cached share per level in every
// format; with --cache flush the cache is emptied before each level and the replay finds nothing.
// (A fresh salt per run, the default, and its verdicts: repeat-run-e2e.test.ts.)

let runs: SameConfigRuns;
beforeAll(async () => {
  runs = await sameConfigRuns('bg-replay-');
});
afterAll(() => runs.close());

describe('the same prompts sent twice to one SGLang simulator', () => {
  it('replaying the first run’s prompts (same salt) reads SUSPECT, naming the prefix cache and the share', async () => {
    const first = await runs.bench('replay-1', ['--salt', '7']);
    const second = await runs.bench('replay-2', ['--salt', '7']);
    // one compare writes Markdown to stdout and report.html and compare.json beside it
    const files = join(runs.dir, 'replay-report');
    const md = await runs.compare([first, second, '--out', files], 'markdown');
    const cmp = JSON.parse(readFileSync(join(files, 'compare.json'), 'utf8')) as CompareJson;
    const share = (run: string) => cmp.cache.filter((r) => r.run === run).map((r) => r.share ?? -1);
    // SGLang's OpenAI routes report cached tokens only in /metrics: the counters over each level
    expect(cmp.cache.every((r) => r.source === 'metrics-counters')).toBe(true);
    expect(
      share('replay-1').every((s) => s >= 0 && s < 0.1),
      JSON.stringify(cmp.cache),
    ).toBe(true);
    expect(
      share('replay-2').every((s) => s > 0.9),
      JSON.stringify(cmp.cache),
    ).toBe(true);
    const second2 = cmp.validity.runs.find((r) => r.run === 'replay-2');
    for (const level of Object.values(second2?.levels ?? {}))
      expect(level.reasons.find((r) => r.check === 'prefix-cache')?.text).toMatch(
        /^Prefix cache: 9\d\.\d% of the measured prompt tokens .* likely cause: the same prompts were sent to this server before/,
      );
    expect(cmp.summary.join("\n")).toMatch(/2 of 4 levels served from the prefix cache.*: replay-2 c=1, c=4\./);

    // every format shows the cached share per level, with its source
    const text = await runs.compare([first, second], 'text');
    expect(text).toMatch(
      /^Prefix cache: share of the measured prompt tokens served from the server's cache$/m,
    );
    expect(text).toMatch(
      /^ {2}replay-2 c=4: 9\d\.\d% of prompt tokens \(\/metrics sglang:cached_tokens_total/m,
    );
    expect(md).toMatch(/^- replay-2 c=1: 9\d\.\d% of prompt tokens/m);
    const csv = await runs.compare([first, second], 'csv');
    expect(csv).toMatch(
      /^suspect,,cached_share,share of prompt tokens,concurrency,4,c=4,replay-2,false,0\.9\d+,/m,
    );
    const html = readFileSync(join(files, 'report.html'), 'utf8');
    expect(html).toContain('id="prefix-cache"');
    expect(html).toMatch(/replay-2 c=1: 9\d\.\d% of prompt tokens/);
  }, 240_000);

  it('replaying the same prompts with --cache flush: the cache is emptied before each level, and the report says so', async () => {
    await runs.bench('flush-1', ['--salt', '11']);
    const second = await runs.bench('flush-2', ['--salt', '11', '--cache', 'flush']);
    const cmp = JSON.parse(await runs.compare([second], 'json')) as CompareJson;
    // the replayed prompts found nothing: SGLang's POST /flush_cache emptied the radix cache
    expect(cmp.cache).toHaveLength(2);
    expect(cmp.cache.every((r) => r.share !== null && r.share < 0.1)).toBe(true);
    for (const r of cmp.cache) expect(r.text).toMatch(/; flushed before the level \(POST \/flush_cache\)$/);
    const reasons = cmp.validity.runs.flatMap((r) => Object.values(r.levels).flatMap((l) => l.reasons));
    expect(reasons.map((r) => r.check)).not.toContain('prefix-cache');
  }, 240_000);
});
