// Writes runs into the store: read each run directory with the same reader compare uses (results/read-run.ts),
// turn it into rows (run-rows.ts) and replace whatever the store held for that directory, one transaction per
// run. A directory that cannot be read is reported with why and skipped; it never stops the others.

import type { DuckDBAppender, DuckDBValue } from '@duckdb/node-api';
import { isBenchgateError } from '../core/errors.js';
import { readRun } from '../results/read-run.js';
import { duckDbTypeIds, type Params, type StoreDb } from './db.js';
import { type FoundRun, findRunDirs } from './discover.js';
import { runRows } from './run-rows.js';
import { RUN_TABLES } from './schema.js';

export interface IndexOutcome {
  indexed: FoundRun[];
  failed: { dir: string; reason: string }[];
  requests: number;
}

/** Appends rows with the typed append calls of each column (several times faster than appendValue). */
function appendRows(appender: DuckDBAppender, rows: readonly Params[]): void {
  const DuckDBTypeId = duckDbTypeIds();
  const writers = Array.from({ length: appender.columnCount }, (_, i) => {
    const id = appender.columnType(i).typeId;
    if (id === DuckDBTypeId.INTEGER) return (v: unknown) => appender.appendInteger(Math.round(Number(v)));
    if (id === DuckDBTypeId.DOUBLE) return (v: unknown) => appender.appendDouble(Number(v));
    if (id === DuckDBTypeId.BOOLEAN) return (v: unknown) => appender.appendBoolean(Boolean(v));
    if (id === DuckDBTypeId.VARCHAR) return (v: unknown) => appender.appendVarchar(String(v));
    const type = appender.columnType(i);
    return (v: unknown) => appender.appendValue(v as DuckDBValue, type);
  });
  for (const row of rows) {
    for (let i = 0; i < writers.length; i++) {
      const v = row[i];
      if (v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v)))
        appender.appendNull();
      else writers[i](v);
    }
    appender.endRow();
  }
  appender.flushSync();
}

async function insertRows(db: StoreDb, table: string, rows: readonly Params[]): Promise<void> {
  if (rows.length === 0) return;
  const appender = await db.connection.createAppender(table);
  try {
    appendRows(appender, rows);
  } finally {
    appender.closeSync();
  }
}

async function deleteRun(db: StoreDb, dir: string): Promise<void> {
  for (const t of RUN_TABLES) await db.run(`DELETE FROM ${t} WHERE dir = ?`, [dir]);
}

/** Indexes one found run (replacing its rows); the number of request rows written. */
async function indexOne(db: StoreDb, found: FoundRun): Promise<number> {
  const run = await readRun(found.dir);
  const rows = runRows(run, found.id, found.matrixDir);
  await db.run('BEGIN TRANSACTION');
  try {
    await deleteRun(db, found.dir);
    await insertRows(db, 'runs', [rows.run]);
    await insertRows(db, 'config', rows.config);
    await insertRows(db, 'levels', rows.levels);
    await insertRows(db, 'requests', rows.requests);
    await db.run('COMMIT');
  } catch (e) {
    await db.run('ROLLBACK').catch(() => {});
    throw e;
  }
  return rows.requests.length;
}

/** Indexes the given runs, replacing their rows; unreadable ones are listed in `failed`. */
export async function addRuns(db: StoreDb, runs: readonly FoundRun[]): Promise<IndexOutcome> {
  const out: IndexOutcome = { indexed: [], failed: [], requests: 0 };
  for (const found of runs) {
    try {
      out.requests += await indexOne(db, found);
      out.indexed.push(found);
    } catch (e) {
      // one unreadable run never stops the others; what went wrong is named with the directory
      const reason = e instanceof Error ? e.message : String(e);
      out.failed.push({ dir: found.dir, reason: isBenchgateError(e) ? reason : `unexpected: ${reason}` });
    }
  }
  return out;
}

export async function addRoots(db: StoreDb, roots: readonly string[]): Promise<void> {
  for (const r of roots) await db.run('INSERT INTO roots VALUES (?) ON CONFLICT DO NOTHING', [r]);
}

/** Rebuilds the store's rows from every run under `roots` (which become the store's recorded roots). */
export async function indexRoots(db: StoreDb, roots: readonly string[]): Promise<IndexOutcome> {
  for (const t of [...RUN_TABLES, 'roots']) await db.run(`DELETE FROM ${t}`);
  await addRoots(db, roots);
  const found: FoundRun[] = [];
  const seen = new Set<string>();
  for (const root of roots)
    for (const f of await findRunDirs(root))
      if (!seen.has(f.dir)) {
        seen.add(f.dir);
        found.push(f);
      }
  return addRuns(db, found);
}
