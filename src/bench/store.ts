// `npm run bench:store`: the results store's engine, measured on what matters to it. N synthetic run
// directories (default 50 runs × 20,000 request records = 1M) are indexed by the product's own indexer into
// DuckDB (@duckdb/node-api) and, when better-sqlite3 can be loaded, the same rows into SQLite; then p99 TTFT
// over every request record (one global, one per run and level), DuckDB also straight from the
// requests.jsonl files, and the cost of the hook `bench` pays to add one run. Prints figures, asserts nothing.
// argv: [runs=50] [recordsPerRun=20000] [data directory, kept and reused when given]. SQLite: `npm install --no-save better-sqlite3@12.11.1`, or set
// BETTER_SQLITE3 to the package's directory in another install.

import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { readRun } from '../results/read-run.js';
import { openDb } from '../store/db.js';
import { findRunDirs } from '../store/discover.js';
import { addRuns } from '../store/index-runs.js';
import { runRows } from '../store/run-rows.js';
import { STORE_DDL } from '../store/schema.js';
import { openStore } from '../store/store.js';
import { writeSyntheticRuns } from './store-data.js';

interface SqliteDb {
  exec(sql: string): void;
  prepare(sql: string): { run(...p: unknown[]): void; get(...p: unknown[]): Record<string, unknown> };
  transaction(fn: () => void): () => void;
  close(): void;
}

const seconds = async (fn: () => Promise<unknown> | unknown) => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};
const mb = (path: string) => {
  try {
    return statSync(path).size / 1024 / 1024;
  } catch {
    return 0;
  }
};

async function loadSqlite(): Promise<((path: string) => SqliteDb) | null> {
  try {
    const mod = (await import(process.env.BETTER_SQLITE3 ?? 'better-sqlite3')) as {
      default: new (p: string) => SqliteDb;
    };
    return (path) => new mod.default(path);
  } catch (e) {
    process.stdout.write(
      `SQLite: better-sqlite3 not loadable (${(e as Error).message.split('\n')[0]}); skipped.\n`,
    );
    return null;
  }
}

interface Measured {
  indexS: number;
  p99S: number;
  groupsS: number;
  filesS: number | null;
  addOneS: number;
  sizeMb: number;
  p99: number;
}

const P99_SQL = 'SELECT quantile_cont(ttft_ms, 0.99) AS p FROM requests';
const P99_GROUPS_SQL =
  'SELECT dir, level_index, quantile_cont(ttft_ms, 0.99) AS p FROM requests GROUP BY ALL';

async function measureDuckDb(root: string, work: string): Promise<Measured> {
  const path = join(work, 'store.duckdb');
  const loc = { path, roots: [root] };
  const indexS = await seconds(async () => (await openStore(loc, () => {})).db.close());
  const db = await openDb(path, { readOnly: true });
  const p99S = await seconds(() => db.all(P99_SQL));
  const groupsS = await seconds(() => db.all(P99_GROUPS_SQL));
  const filesS = await seconds(() =>
    db.all(
      `SELECT quantile_cont(chunkMs[1] - sentMs, 0.99) AS p FROM read_json('${root}/*/requests.jsonl',
       format='newline_delimited', columns={sentMs: 'DOUBLE', chunkMs: 'DOUBLE[]', warmup: 'BOOLEAN', error: 'JSON'})
       WHERE NOT warmup AND error IS NULL AND len(chunkMs) > 0`,
    ),
  );
  const p = (await db.all(P99_SQL))[0]?.p;
  db.close();
  const found = (await findRunDirs(root)).slice(0, 1);
  const addOneS = await seconds(async () => {
    const { db: rw } = await openStore(loc, () => {});
    await addRuns(rw, found);
    rw.close();
  });
  return { indexS, p99S, groupsS, filesS, addOneS, sizeMb: mb(path), p99: Number(p) };
}

const toSqlite = (v: unknown) => (typeof v === 'boolean' ? Number(v) : v);

async function insertRun(db: SqliteDb, dir: string, id: string) {
  const rows = runRows(await readRun(dir), id, null);
  const insert = (table: string, list: readonly unknown[][]) => {
    if (list.length === 0) return;
    const st = db.prepare(`INSERT INTO ${table} VALUES (${list[0].map(() => '?').join(', ')})`);
    for (const r of list) st.run(...r.map(toSqlite));
  };
  db.transaction(() => {
    // replace the run's rows, as the product's indexer does
    for (const t of ['runs', 'config', 'levels', 'requests'])
      db.prepare(`DELETE FROM ${t} WHERE dir = ?`).run(dir);
    insert('runs', [rows.run]);
    insert('config', rows.config);
    insert('levels', rows.levels);
    insert('requests', rows.requests);
  })();
}

async function measureSqlite(
  open: (path: string) => SqliteDb,
  root: string,
  work: string,
): Promise<Measured> {
  const path = join(work, 'store.sqlite');
  const found = await findRunDirs(root);
  const db = open(path);
  db.exec('PRAGMA journal_mode = WAL');
  const indexS = await seconds(async () => {
    for (const ddl of STORE_DDL) db.exec(ddl);
    for (const f of found) await insertRun(db, f.dir, f.id);
  });
  // nearest-rank p99: SQLite has no percentile function in better-sqlite3's build, so sort and offset
  const n = Number(db.prepare('SELECT count(ttft_ms) AS n FROM requests').get().n);
  let p99 = 0;
  const p99S = await seconds(() => {
    p99 = Number(
      db
        .prepare(
          'SELECT ttft_ms AS p FROM requests WHERE ttft_ms IS NOT NULL ORDER BY ttft_ms LIMIT 1 OFFSET ?',
        )
        .get(Math.floor(0.99 * (n - 1))).p,
    );
  });
  const groupsS = await seconds(() =>
    db
      .prepare(`SELECT count(*) AS n FROM (SELECT dir, level_index, ttft_ms, row_number() OVER (PARTITION BY dir, level_index ORDER BY ttft_ms) AS k,
      count(*) OVER (PARTITION BY dir, level_index) AS c FROM requests WHERE ttft_ms IS NOT NULL) WHERE k = CAST(0.99 * (c - 1) AS INTEGER) + 1`)
      .get(),
  );
  db.close();
  const addOneS = await seconds(async () => {
    const again = open(path);
    await insertRun(again, found[0].dir, found[0].id);
    again.close();
  });
  return { indexS, p99S, groupsS, filesS: null, addOneS, sizeMb: mb(path) + mb(`${path}-wal`), p99 };
}

const HEAD =
  'engine                                     index s  p99 all s  p99 per level s  p99 from jsonl s  add 1 run s  size MB  p99 TTFT ms\n';

function printRow(name: string, r: Measured): void {
  const f = (v: number | null, d = 2) => (v === null ? '—' : v.toFixed(d));
  process.stdout.write(
    `${name.padEnd(42)} ${f(r.indexS, 1).padStart(7)}  ${f(r.p99S, 3).padStart(9)}  ${f(r.groupsS, 3).padStart(15)}  ${f(r.filesS, 3).padStart(16)}  ${f(r.addOneS).padStart(11)}  ${f(r.sizeMb, 0).padStart(7)}  ${f(r.p99, 1).padStart(11)}\n`,
  );
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 50);
  const perRun = Number(process.argv[3] ?? 20_000);
  const work = mkdtempSync(join(tmpdir(), 'bg-bench-store-'));
  const root = process.argv[4] ?? join(work, 'results');
  try {
    if (!existsSync(join(root, 'bench-run-000'))) {
      let records = 0;
      const writeS = await seconds(() => {
        records = writeSyntheticRuns(root, runs, perRun);
      });
      const perRunMb = mb(join(root, 'bench-run-000', 'requests.jsonl')).toFixed(1);
      process.stdout.write(
        `${runs} runs, ${records.toLocaleString('en-US')} request records written in ${writeS.toFixed(1)} s (${perRunMb} MB requests.jsonl per run)\n`,
      );
    } else process.stdout.write(`reusing the runs in ${root}\n`);
    process.stdout.write(HEAD);
    printRow('DuckDB 1.5.6 (@duckdb/node-api 1.5.6-r.1)', await measureDuckDb(root, work));
    const sqlite = await loadSqlite();
    if (sqlite) printRow('SQLite 3.53.2 (better-sqlite3 12.11.1)', await measureSqlite(sqlite, root, work));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
