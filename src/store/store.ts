// Opening the results store: where it is (the results directory's benchgate-store.duckdb, --store PATH, or
// BENCHGATE_STORE), creating it when missing, and rebuilding it from the run directories when it was made by
// another schema version. A file that is not a DuckDB database, or a database that is not a benchgate
// store, is never overwritten: BG_E_STORE names it and says what to do.

import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import { benchgateVersion } from '../core/version.js';
import { openDb, type StoreDb, StoreOpenError } from './db.js';
import { type IndexOutcome, indexRoots } from './index-runs.js';
import { STORE_DDL, STORE_FILE, STORE_SCHEMA_VERSION } from './schema.js';

export interface StoreLocation {
  /** The store file. */
  path: string;
  /** Results directories to build it from when it is missing or of another version. */
  roots: string[];
}

/** --store PATH, else $BENCHGATE_STORE (unless `off`), else <results>/benchgate-store.duckdb. */
export function storeLocation(
  opts: { store?: string; results?: string },
  env: Record<string, string | undefined> = process.env,
): StoreLocation {
  const results = resolve(opts.results ?? 'results');
  const fromEnv = env.BENCHGATE_STORE?.toLowerCase() === 'off' ? undefined : env.BENCHGATE_STORE;
  const explicit = opts.store ?? fromEnv;
  return { path: resolve(explicit || join(results, STORE_FILE)), roots: [results] };
}

function unusable(path: string, why: string): BenchgateError {
  return new BenchgateError(
    'BG_E_STORE',
    `${path} is not a usable benchgate results store (${why}). The run directories are the truth: delete the file (or pass another --store) and run \`benchgate index RESULTS_DIR\` to build it again.`,
  );
}

async function openWritable(path: string): Promise<StoreDb> {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    throw new BenchgateError(
      'BG_E_STORE',
      `Cannot create the directory of the store ${path}: ${(e as Error).message}.`,
    );
  }
  try {
    return await openDb(path);
  } catch (e) {
    if (e instanceof StoreOpenError) throw unusable(path, e.message.split('\n')[0]);
    throw e;
  }
}

/** The tables' schema version, null for an empty database; throws for a database that is not a store. */
async function schemaVersion(db: StoreDb): Promise<number | null> {
  const tables = (await db.all('SELECT table_name FROM information_schema.tables')).map((r) => r.table_name);
  if (tables.length === 0) return null;
  if (!tables.includes('meta'))
    throw unusable(db.path, `it holds tables ${tables.join(', ')} but no meta table`);
  const row = (await db.all("SELECT value FROM meta WHERE key = 'schema_version'"))[0];
  const v = Number(row?.value);
  if (!Number.isInteger(v)) throw unusable(db.path, 'its meta table has no schema_version');
  return v;
}

async function createTables(db: StoreDb): Promise<void> {
  for (const ddl of STORE_DDL) await db.run(ddl);
  await db.run('INSERT INTO meta VALUES (?, ?), (?, ?), (?, ?)', [
    ...['schema_version', String(STORE_SCHEMA_VERSION)],
    ...['created_at', new Date().toISOString()],
    ...['created_by', `benchgate ${benchgateVersion()}`],
  ]);
}

export interface ReadyStore {
  db: StoreDb;
  /** Set when the store was (re)built from the run directories just now. */
  rebuilt: IndexOutcome | null;
}

/**
 * Opens the store read-write, ready to use: created and indexed from `roots` when missing, rebuilt when
 * made by another schema version (its recorded roots kept). `note` hears what happened, one sentence each.
 */
export async function openStore(loc: StoreLocation, note: (line: string) => void): Promise<ReadyStore> {
  const db = await openWritable(loc.path);
  try {
    const version = await schemaVersion(db);
    if (version === STORE_SCHEMA_VERSION) return { db, rebuilt: null };
    let roots = loc.roots;
    if (version !== null) {
      const kept = await db.all('SELECT dir FROM roots').catch(() => []);
      roots = [...new Set([...kept.map((r) => String(r.dir)), ...loc.roots])];
      note(
        `benchgate: the store ${loc.path} has schema version ${version} (this benchgate uses ${STORE_SCHEMA_VERSION}); rebuilding it from ${roots.join(', ')}.`,
      );
      const tables = await db.all('SELECT table_name FROM information_schema.tables');
      for (const t of tables) await db.run(`DROP TABLE "${String(t.table_name).replace(/"/g, '""')}"`);
    } else note(`benchgate: building the results store ${loc.path} from ${roots.join(', ')}.`);
    await createTables(db);
    const rebuilt = await indexRoots(db, roots);
    for (const f of rebuilt.failed) note(`benchgate: skipped ${f.dir}: ${f.reason}`);
    return { db, rebuilt };
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * Makes sure the store exists and is current, then opens it read-only; `sandboxed` (for SQL a user typed,
 * `query`) adds db.ts's SANDBOX_SETTINGS. Not sandboxed, `export` can still COPY to its Parquet files.
 */
export async function openStoreReadOnly(
  loc: StoreLocation,
  note: (line: string) => void,
  opts: { sandboxed?: boolean } = {},
): Promise<StoreDb> {
  (await openStore(loc, note)).db.close();
  try {
    return await openDb(loc.path, { readOnly: true, sandboxed: opts.sandboxed === true });
  } catch (e) {
    if (e instanceof StoreOpenError) throw unusable(loc.path, e.message.split('\n')[0]);
    throw e;
  }
}
