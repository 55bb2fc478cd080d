// The results store end to end through the real CLI: two `bench` runs (a baseline and an EAGLE-3 server,
// each a simulator started here) are added as they finish; `runs --where` finds the right one; deleting the
// store and `index` gives the same answers; a store of another schema version is rebuilt, a file that is
// not a store is named in a clear error; `query` refuses writes; `history` gives intervals; `export`
// writes Parquet that DuckDB reads back.

import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchAgainstSimulator } from '../cli/test-support/bench-sim.js';
import { runCli } from '../cli/test-support/run-cli.js';
import { openDb } from './db.js';
import { STORE_FILE } from './schema.js';

const results = mkdtempSync(join(tmpdir(), 'bg-store-'));
const store = join(results, STORE_FILE);
const cli = (...args: string[]) => runCli([...args, '--results', results]);
let eagleDir = '';

beforeAll(async () => {
  const base = await benchAgainstSimulator({ results, name: 'plain', sim: { timeScale: 4 } });
  expect(base.code, base.stderr).toBe(0);
  const eagle = await benchAgainstSimulator({
    results,
    name: 'eagle',
    sim: { timeScale: 4, engineArgs: ['--speculative-algorithm', 'EAGLE3', '--speculative-eagle-topk', '1'] },
  });
  expect(eagle.code, eagle.stderr).toBe(0);
  eagleDir = eagle.dir;
}, 180_000);
afterAll(() => rmSync(results, { recursive: true, force: true }));

const runsJson = async (...args: string[]) => {
  const r = await cli('runs', '--format', 'json', ...args);
  expect(r.code, r.stderr).toBe(0);
  return (
    JSON.parse(r.stdout) as { id: string; dir: string; validity: string; configFingerprint: string }[]
  ).map((x) => ({ id: x.id, dir: x.dir, validity: x.validity, config: x.configFingerprint }));
};

describe('where a read command finds the store', () => {
  it('never creates a results folder or a store where nothing was recorded: a usage error says so', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'bg-store-none-'));
    for (const args of [['runs'], ['runs', '--results', 'typo'], ['gate', 'last-run', '--results', 'typo']]) {
      const r = await runCli(args, { cwd: empty });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('No results directory at');
    }
    expect(readdirSync(empty)).toEqual([]);
  });

  it('finds the store when standing in the results folder itself', async () => {
    const r = await runCli(['runs', '--format', 'json'], { cwd: results });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    expect(existsSync(join(results, 'results'))).toBe(false);
  });
});

describe('the results store', () => {
  it('holds each bench run as it finishes and filters by a normalised config key; a rebuild gives the same answers', async () => {
    expect(existsSync(store)).toBe(true);
    const all = await runsJson();
    expect(all).toHaveLength(2);
    const eagle = await runsJson('--where', 'speculative.algorithm=EAGLE3');
    expect(eagle.map((r) => r.dir)).toEqual([eagleDir]);
    const notEagle = await runsJson('--where', 'speculative.algorithm!=eagle3');
    expect(notEagle).toHaveLength(1);
    expect(notEagle[0].dir).not.toBe(eagleDir);
    rmSync(store);
    const indexed = await cli('index');
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(indexed.stdout).toContain('indexed 2 run(s)');
    expect(await runsJson()).toEqual(all);
    expect(await runsJson('--where', 'speculative.algorithm=EAGLE3')).toEqual(eagle);
  }, 240_000);

  it('rebuilds a store of another schema version, and names a file that is not a store instead of crashing', async () => {
    const db = await openDb(store);
    await db.run("UPDATE meta SET value = '0' WHERE key = 'schema_version'");
    db.close();
    const rebuilt = await cli('runs');
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toContain('has schema version 0');
    expect(
      rebuilt.stdout.split('\n').filter((l) => l.includes('-plain') || l.includes('-eagle')),
    ).toHaveLength(2);
    const other = join(results, 'not-a-store.duckdb');
    writeFileSync(other, 'this is not a database\n'.repeat(100));
    const broken = await runCli(['runs', '--store', other]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`${other} is not a usable benchgate results store`);
    expect(broken.stderr).toContain('[BG_E_STORE]');
    expect(broken.stderr).not.toMatch(/\n\s+at /);
  }, 240_000);

  it('runs read-only SQL and refuses writes', async () => {
    const q = await cli('query', 'SELECT count(*) AS n FROM requests', '--format', 'json');
    expect(q.code, q.stderr).toBe(0);
    expect(JSON.parse(q.stdout)[0].n).toBeGreaterThan(60);
    for (const sql of [
      "INSERT INTO meta VALUES ('a', 'b')",
      "COPY runs TO '/tmp/x.csv'",
      'DROP TABLE runs',
    ]) {
      const w = await cli('query', sql);
      expect(w.code, sql).toBe(1);
      expect(w.stderr).toContain('The query is refused');
    }
  }, 240_000);

  it('gives a metric over time with intervals, and exports Parquet that reads back', async () => {
    const h = await cli(
      'history',
      'output_throughput',
      '--level',
      'c=8',
      '--format',
      'json',
      '--iterations',
      '200',
    );
    expect(h.code, h.stderr).toBe(0);
    const points = JSON.parse(h.stdout).points as { value: number; ci: { low: number; high: number } }[];
    expect(points).toHaveLength(2);
    for (const p of points) {
      expect(p.ci.low).toBeLessThanOrEqual(p.value);
      expect(p.ci.high).toBeGreaterThanOrEqual(p.value);
    }
    const out = join(results, 'parquet');
    const e = await cli('export', '--parquet', out, '--where', 'speculative.algorithm=EAGLE3');
    expect(e.code, e.stderr).toBe(0);
    const db = await openDb(':memory:');
    const [req] = await db.all(
      `SELECT count(*) AS n, count(DISTINCT run) AS runs FROM '${out}/requests.parquet'`,
    );
    const [lev] = await db.all(`SELECT count(*) AS n FROM '${out}/levels.parquet'`);
    // one name for the run key in every file: they join on it
    const [joined] = await db.all(
      `SELECT count(*) AS n FROM '${out}/levels.parquet' l JOIN '${out}/runs.parquet' r USING (run)`,
    );
    db.close();
    expect(joined.n).toBe(2);
    expect(req).toEqual({ n: 64, runs: 1 });
    expect(lev.n).toBe(2);
  }, 240_000);
});
