// The query sandbox against every escape issue 33 found and DuckDB's security documentation lists: each
// statement is refused with BG_E_QUERY, and afterwards no file changed or appeared, the store's bytes are
// the same and a loopback HTTP server saw no connection. Plain SELECTs over the store's tables still run,
// and the real CLI goes through the same sandbox.

import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { BenchgateError } from '../core/errors.js';
import { openDb, type StoreDb } from './db.js';
import { readOnlyQuery } from './query.js';
import { openStoreReadOnly, storeLocation } from './store.js';

const work = mkdtempSync(join(tmpdir(), 'bg-query-sandbox-'));
const results = join(work, 'results');
const target = join(work, 'target.txt');
const ORIGINAL = 'the original content\n';
let http: Server;
let httpConnections = 0;
let url = '';
let db: StoreDb;

const listing = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
const storeHash = () =>
  createHash('sha256')
    .update(readFileSync(join(results, 'benchgate-store.duckdb')))
    .digest('hex');
const duckdbHome = join(homedir(), '.duckdb');

beforeAll(async () => {
  writeFileSync(target, ORIGINAL);
  writeFileSync(join(work, 'data.csv'), 'secret\nleaked\n');
  writeFileSync(join(work, 'data.json'), '[{"secret": "leaked"}]\n');
  const scratch = await openDb(':memory:');
  await scratch.run(`COPY (SELECT 'leaked' AS secret) TO '${join(work, 'data.parquet')}' (FORMAT parquet)`);
  scratch.close();
  http = createServer((_req, res) => res.end('secret\nleaked\n'));
  http.on('connection', () => {
    httpConnections += 1;
  });
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  db = await openStoreReadOnly(storeLocation({ results }), () => {}, { sandboxed: true });
});
afterAll(async () => {
  db?.close();
  await new Promise((done) => http.close(done));
  rmSync(work, { recursive: true, force: true });
});

/** Each escape: what it tries. `${...}` paths are inside the test's own directory or the loopback server. */
const escapes = (): [string, string][] => [
  [
    'EXPLAIN ANALYZE runs a COPY over an existing file',
    `EXPLAIN ANALYZE COPY (SELECT 'owned' AS x) TO '${target}'`,
  ],
  ['EXPLAIN ANALYZE runs an INSTALL', 'EXPLAIN ANALYZE INSTALL httpfs'],
  ['EXPLAIN ANALYZE runs a SET', 'EXPLAIN ANALYZE SET threads = 1'],
  ['EXPLAIN (a plan, not a plain SELECT)', 'EXPLAIN SELECT 1'],
  ['read_csv of a system file', "SELECT * FROM read_csv('/etc/passwd', sep = ':')"],
  ['read_text of a root-only file', "SELECT * FROM read_text('/etc/shadow')"],
  ['read_text of a readable file', `SELECT * FROM read_text('${target}')`],
  ['read_blob of a file', `SELECT * FROM read_blob('${target}')`],
  ['glob of a directory', "SELECT * FROM glob('/root/*')"],
  ['glob of the store directory', `SELECT * FROM glob('${work}/*')`],
  ['a file named in FROM', `SELECT * FROM '${join(work, 'data.csv')}'`],
  ['read_parquet of a file', `SELECT * FROM read_parquet('${join(work, 'data.parquet')}')`],
  ['read_json of a file', `SELECT * FROM read_json('${join(work, 'data.json')}')`],
  ['sniff_csv of a file', `SELECT * FROM sniff_csv('${join(work, 'data.csv')}')`],
  ['read_csv over HTTP', `SELECT * FROM read_csv('${url}/data.csv')`],
  ['a URL named in FROM', `SELECT * FROM '${url}/data.csv'`],
  ['PRAGMA (rewritten to a SELECT by DuckDB)', 'PRAGMA show_tables'],
  ['PRAGMA naming a file', `PRAGMA profiling_output = '${join(work, 'profile.json')}'`],
  ['EXPORT DATABASE', `EXPORT DATABASE '${join(work, 'exported')}'`],
  ['IMPORT DATABASE', `IMPORT DATABASE '${work}'`],
  ['ATTACH of a new file', `ATTACH '${join(work, 'attached.duckdb')}' AS other`],
  ['ATTACH in memory', "ATTACH ':memory:' AS scratch"],
  ['DETACH', 'DETACH benchgate_store'],
  ['COPY … TO an existing file', `COPY runs TO '${target}'`],
  ['COPY … TO a new file', `COPY (SELECT 'owned' AS x) TO '${join(work, 'new.csv')}'`],
  ['COPY … FROM a file', `COPY runs FROM '${join(work, 'data.csv')}'`],
  ['SET turns external access back on', 'SET enable_external_access = true'],
  ['SET unlocks the configuration', 'SET lock_configuration = false'],
  ['SET re-enables a file system', "SET disabled_filesystems = ''"],
  ['RESET a setting', 'RESET enable_external_access'],
  ['SET VARIABLE', 'SET VARIABLE x = 1'],
  ['LOAD an extension', 'LOAD httpfs'],
  ['INSTALL an extension', 'INSTALL httpfs'],
  ['INSTALL from a repository URL', `INSTALL httpfs FROM '${url}'`],
  ['FORCE INSTALL a community extension', 'FORCE INSTALL h3 FROM community'],
  ['CREATE SECRET', "CREATE SECRET (TYPE s3, KEY_ID 'a', SECRET 'b')"],
  ['CREATE PERSISTENT SECRET', "CREATE PERSISTENT SECRET (TYPE s3, KEY_ID 'a', SECRET 'b')"],
  ['CALL a table function', 'CALL duckdb_settings()'],
  ['two statements, the second a DROP', 'SELECT 1; DROP TABLE runs'],
  ['two SELECTs', 'SELECT 1; SELECT 2'],
  ['INSERT into the store', "INSERT INTO meta VALUES ('a', 'b')"],
  ['UPDATE the store', "UPDATE runs SET name = 'x'"],
  ['DELETE from the store', 'DELETE FROM runs'],
  ['DROP a table', 'DROP TABLE runs'],
  ['CREATE a table', 'CREATE TABLE t AS SELECT 1 AS x'],
  ['CREATE a macro', 'CREATE MACRO m(x) AS x + 1'],
  ['ALTER a table', 'ALTER TABLE runs ADD COLUMN x INTEGER'],
  ['a transaction', 'BEGIN TRANSACTION'],
  ['CHECKPOINT', 'CHECKPOINT'],
  ['VACUUM', 'VACUUM'],
  ['USE another catalog', 'USE memory'],
  ['getenv', "SELECT getenv('HOME')"],
  [
    'query() running an EXPLAIN ANALYZE COPY',
    `SELECT * FROM query('EXPLAIN ANALYZE COPY (SELECT 1) TO ''${target}''')`,
  ],
];

describe('benchgate query sandbox', () => {
  it('refuses every escape with BG_E_QUERY, touching no file and no network', async () => {
    const before = { files: listing(work), store: storeHash(), duckdbHome: existsSync(duckdbHome) };
    const outcomes: string[] = [];
    const messages: string[] = [];
    for (const [what, sql] of escapes()) {
      const error = await readOnlyQuery(db, sql).then(
        (r) => `ran, ${r.rows.length} row(s)`,
        (e: unknown) => e,
      );
      outcomes.push(`${what}: ${error instanceof BenchgateError ? error.code : String(error)}`);
      if (error instanceof BenchgateError) messages.push(error.message);
    }
    expect(outcomes).toEqual(escapes().map(([what]) => `${what}: BG_E_QUERY`));
    for (const m of messages) expect(m).toMatch(/^The query (is refused|failed): \S/);
    expect(readFileSync(target, 'utf8')).toBe(ORIGINAL);
    expect(listing(work)).toEqual(before.files);
    expect(storeHash()).toBe(before.store);
    expect(existsSync(duckdbHome)).toBe(before.duckdbHome);
    expect(httpConnections).toBe(0);
  }, 120_000);

  it('holds on the connection itself: a statement that skipped the statement check still cannot write, read a file or unlock', async () => {
    for (const sql of [
      `EXPLAIN ANALYZE COPY (SELECT 'owned' AS x) TO '${target}'`,
      `SELECT * FROM read_text('${target}')`,
      'SET lock_configuration = false',
      'SET enable_external_access = true',
      "INSERT INTO meta VALUES ('a', 'b')",
    ])
      await expect(db.connection.run(sql), sql).rejects.toThrow(
        /Permission Error|configuration has been locked|read-only/i,
      );
    expect(readFileSync(target, 'utf8')).toBe(ORIGINAL);
  }, 60_000);

  it('refuses to run a query on a connection that was not opened in the sandbox', async () => {
    const plain = await openDb(join(results, 'benchgate-store.duckdb'), { readOnly: true });
    try {
      await expect(readOnlyQuery(plain, 'SELECT 1')).rejects.toThrow(/not opened in the query sandbox/);
    } finally {
      plain.close();
    }
  }, 60_000);

  it('still runs plain read-only SELECTs over runs, config, levels and requests', async () => {
    for (const sql of [
      'SELECT count(*) AS n FROM runs',
      'SELECT count(*) AS n FROM config',
      'WITH l AS (SELECT * FROM levels) SELECT count(*) AS n FROM l',
      'SELECT count(*) AS n FROM requests',
      'FROM (VALUES (1)) v(n)',
    ])
      expect((await readOnlyQuery(db, sql)).rows, sql).toEqual([{ n: sql.startsWith('FROM') ? 1 : 0 }]);
    expect((await readOnlyQuery(db, 'DESCRIBE runs')).rows.length).toBeGreaterThan(3);
  }, 60_000);

  it('refuses a result larger than the row cap instead of holding it (range(1e12)), and returns one at the cap', async () => {
    await expect(readOnlyQuery(db, 'SELECT * FROM range(1000000000000)')).rejects.toThrow(
      /returns more than 200000 rows; add a LIMIT/,
    );
    expect((await readOnlyQuery(db, 'SELECT * FROM range(10)', 10)).rows).toHaveLength(10);
    await expect(readOnlyQuery(db, 'SELECT * FROM range(11)', 10)).rejects.toThrow(/more than 10 rows/);
  }, 60_000);

  it('the CLI refuses EXPLAIN ANALYZE COPY over a file and read_text, exit 1 naming the error, the file unchanged', async () => {
    for (const sql of [
      `EXPLAIN ANALYZE COPY (SELECT 'owned' AS x) TO '${target}'`,
      `SELECT * FROM read_text('${target}')`,
    ]) {
      const r = await runCli(['query', sql, '--results', results]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('[BG_E_QUERY]');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).not.toContain('original');
    }
    expect(readFileSync(target, 'utf8')).toBe(ORIGINAL);
  }, 120_000);
});
