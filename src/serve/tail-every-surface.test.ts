// One tail rule on every surface: one real `bench` of a single 50-request level (p99 needs 662 samples),
// then every place a user reads its figures: `bench --json`, level-00.json, summary.json, the store's
// levels table (and its stored summary), the dashboard's run page and the live view's API. None may show
// a p99 number; each says it is withheld beside its sample count.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { fixedSimForFile } from '../sim/testing/fixed-sim.js';
import { openDb } from '../store/db.js';
import { storeLocation } from '../store/store.js';
import { buildApp } from './app.js';
import { LiveRun } from './live-run.js';
import { figuresOf, RequestsTail } from './live-tail.js';

const { url, out } = fixedSimForFile('bg-tail-surfaces-', { ttftMs: 5, itlMs: 1 });

type Dist = { count: number; percentiles: Record<string, number | null> };

/** Every distribution (an object with a count and percentiles) anywhere in a JSON document. */
function distributions(v: unknown, found: Dist[] = []): Dist[] {
  if (typeof v !== 'object' || v === null) return found;
  const d = v as Dist;
  if (typeof d.count === 'number' && typeof d.percentiles === 'object' && d.percentiles !== null)
    found.push(d);
  for (const x of Object.values(v)) distributions(x, found);
  return found;
}

/** No p99 number anywhere: each distribution with a p99 key has it null, its count below the floor. */
function expectNoP99(doc: unknown, where: string): void {
  const ds = distributions(doc).filter((d) => 'p99' in d.percentiles);
  expect(ds.length, `${where}: distributions with a p99 key`).toBeGreaterThan(0);
  for (const d of ds) {
    expect(d.percentiles.p99, where).toBeNull();
    expect(d.count, where).toBeLessThan(662);
  }
}

describe('a 50-request level on every surface', () => {
  it('shows no p99 number in the JSON files, the store, the run page or the live API', async () => {
    const bench = await runCli(
      [
        ...['bench', '--url', url(), '--concurrency', '4', '--requests', '50', '--warmup', '0'],
        ...['--input-tokens', '16', '--output-tokens', '8', '--name', 'fifty', '--out', out, '--json'],
      ],
      { env: { BENCHGATE_STORE: '' } },
    );
    expect(bench.code, bench.stderr).toBe(0);
    const printed = JSON.parse(bench.stdout);
    expect(printed.levels[0].ttftMs.count).toBe(50);
    expectNoP99(printed, 'bench --json');
    expect(
      printed.validity.levels['concurrency:4:'].reasons.map((r: { check: string }) => r.check),
    ).toContain('samples');

    const dir = join(out, readdirSync(out).find((d) => d.includes('fifty'))!);
    for (const f of ['level-00.json', 'summary.json'])
      expectNoP99(JSON.parse(readFileSync(join(dir, f), 'utf8')), f);

    // the store `bench` recorded the run in
    const loc = storeLocation({ results: out }, {});
    const db = await openDb(loc.path, { readOnly: true, waitMs: 5000 });
    let runId = '';
    try {
      const [level] = await db.all('SELECT ttft_p99_ms, tpot_p99_ms, e2e_p99_ms, summary FROM levels');
      expect([level.ttft_p99_ms, level.tpot_p99_ms, level.e2e_p99_ms]).toEqual([null, null, null]);
      expectNoP99(JSON.parse(String(level.summary)), 'store levels.summary');
      runId = String((await db.all('SELECT id FROM runs'))[0].id);
    } finally {
      db.close();
    }

    // the dashboard's run page: the p99 cell says why it is empty
    const app = buildApp({ location: loc });
    const page = await (await app.request(`/run?id=${encodeURIComponent(runId)}`)).text();
    expect(page).toContain('p99 n/a (50 samples; ≥662 needed');

    // the live API: a finished level from its file, and the level being measured from its records
    const live = new LiveRun(dir).state().levels[0].figures;
    expect(live).toMatchObject({ ttftP99Ms: null, ttftSamples: 50 });
    const tail = new RequestsTail(dir);
    tail.poll();
    const running = figuresOf(tail.levels.get(0)!);
    expect(running.done).toBe(50);
    expect(running.ttftP99Ms).toBeNull();
    expect(running.ttftP50Ms).not.toBeNull();
  }, 240_000);
});
