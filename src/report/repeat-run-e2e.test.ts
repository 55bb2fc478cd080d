import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { type SimulatorHandle, startSimulator } from '../sim/index.js';

// The same configuration run twice back to back against one SGLang simulator, through the real CLI, as
// a user would. Replaying the first run's prompts (the same salt) is served from the simulator's prefix
// cache and must read SUSPECT naming the cache; the default, a fresh salt per run, sends unseen
// prompts, and with repeated trials the two runs read "no meaningful difference". The cached share is
// shown per level in every format.

let sim: SimulatorHandle;
const out = mkdtempSync(join(tmpdir(), 'bg-repeat-'));

beforeAll(async () => {
  // time scale 0.5: the story model at half speed (a request of 256 + 16 tokens takes ~0.4 s at
  // concurrency 1), so a host hiccup of tens of ms on a busy machine is a small share of each request
  sim = await startSimulator({ host: '127.0.0.1', port: 0, loadTimeS: 0, timeScale: 0.5 });
  await sim.ready;
});
afterAll(async () => {
  await sim.close();
  rmSync(out, { recursive: true, force: true });
});

/** One `bench` run of the shared config into its own folder; returns its run directory. */
async function bench(name: string, extra: string[]): Promise<string> {
  const dir = join(out, name);
  const args = ['--url', sim.url, '--concurrency', '1,4', '--requests', '12', '--input-tokens', '256'];
  const r = await runCli([
    'bench',
    ...args,
    '--output-tokens',
    '16',
    '--name',
    name,
    '--out',
    dir,
    '--json',
    ...extra,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return join(dir, readdirSync(dir)[0]);
}

async function compare(dirs: string[], format: string): Promise<string> {
  const r = await runCli(['compare', ...dirs, '--format', format]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

interface CompareJson {
  validity: {
    runs: { run: string; levels: Record<string, { reasons: { check: string; text: string }[] }> }[];
  };
  cache: { run: string; label: string; share: number | null; source: string | null; text: string }[];
  verdicts: { metric: string; text: string; family?: string[] }[];
  summary: string[];
}

describe('the same config run twice against one SGLang simulator', () => {
  it('replaying the first run’s prompts (same salt) reads SUSPECT, naming the prefix cache and the share', async () => {
    const first = await bench('replay-1', ['--salt', '7']);
    const second = await bench('replay-2', ['--salt', '7']);
    // one compare writes Markdown to stdout and report.html and compare.json beside it
    const files = join(out, 'replay-report');
    const md = await compare([first, second, '--out', files], 'markdown');
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
    expect(cmp.summary.join('\n')).toMatch(/replay-2 c=1, c=4: served from the prefix cache/);

    // every format shows the cached share per level, with its source
    const text = await compare([first, second], 'text');
    expect(text).toMatch(
      /^Prefix cache: share of the measured prompt tokens served from the server's cache$/m,
    );
    expect(text).toMatch(
      /^ {2}replay-2 c=4: 9\d\.\d% of prompt tokens \(\/metrics sglang:cached_tokens_total/m,
    );
    expect(md).toMatch(/^- replay-2 c=1: 9\d\.\d% of prompt tokens/m);
    const csv = await compare([first, second], 'csv');
    expect(csv).toMatch(
      /^suspect,,cached_share,share of prompt tokens,concurrency,4,c=4,replay-2,false,0\.9\d+,/m,
    );
    const html = readFileSync(join(files, 'report.html'), 'utf8');
    expect(html).toContain('id="prefix-cache"');
    expect(html).toMatch(/replay-2 c=1: 9\d\.\d% of prompt tokens/);
  }, 240_000);

  it('by default sends unseen prompts: no cache share, and with trials "no meaningful difference"', async () => {
    const first = await bench('fresh-1', ['--trials', '3']);
    const second = await bench('fresh-2', ['--trials', '3']);
    const cmp = JSON.parse(await compare([first, second], 'json')) as CompareJson;
    expect(cmp.cache).toHaveLength(2 * 2 * 3);
    expect(cmp.cache.every((r) => r.share !== null && r.share < 0.1)).toBe(true);
    const reasons = cmp.validity.runs.flatMap((r) => Object.values(r.levels).flatMap((l) => l.reasons));
    expect(reasons.map((r) => r.check)).not.toContain('prefix-cache');
    const throughput = cmp.verdicts.find((v) => v.metric === 'output_throughput');
    expect(throughput?.text).toMatch(/^fresh-2 and fresh-1: no meaningful difference in output throughput/);
    expect(cmp.summary).toContainEqual(expect.stringMatching(/^Intervals resample trials, then requests/));
  }, 300_000);

  it('replaying the same prompts with --cache flush: the cache is emptied before each level, and the report says so', async () => {
    await bench('flush-1', ['--salt', '11']);
    const second = await bench('flush-2', ['--salt', '11', '--cache', 'flush']);
    const cmp = JSON.parse(await compare([second], 'json')) as CompareJson;
    // the replayed prompts found nothing: SGLang's POST /flush_cache emptied the radix cache
    expect(cmp.cache).toHaveLength(2);
    expect(cmp.cache.every((r) => r.share !== null && r.share < 0.1)).toBe(true);
    for (const r of cmp.cache) expect(r.text).toMatch(/; flushed before the level \(POST \/flush_cache\)$/);
    const reasons = cmp.validity.runs.flatMap((r) => Object.values(r.levels).flatMap((l) => l.reasons));
    expect(reasons.map((r) => r.check)).not.toContain('prefix-cache');
  }, 240_000);
});
