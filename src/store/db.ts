// The one place that talks to DuckDB (@duckdb/node-api): open a database file read-write or read-only,
// run statements with bound parameters, read rows as plain JS values, close. DuckDB lets one process
// write a file at a time, so an open that meets another process's lock is retried for a while before
// it becomes BG_E_STORE; any other failure to open says the file is not a usable store. DuckDB's
// native module is loaded at the first open, so a command that never opens the store never loads it.

import { setTimeout as sleep } from 'node:timers/promises';
import type { DuckDBConnection, DuckDBTypeId as DuckDBTypeIds, DuckDBValue } from '@duckdb/node-api';
import { BenchgateError } from '../core/errors.js';

export type Row = Record<string, unknown>;
export type Params = DuckDBValue[];

export interface StoreDb {
  readonly path: string;
  readonly readOnly: boolean;
  all(sql: string, params?: Params): Promise<Row[]>;
  run(sql: string, params?: Params): Promise<void>;
  /** The underlying connection, for appenders and statement inspection. */
  readonly connection: DuckDBConnection;
  close(): void;
}

/** Why an open failed: another process holds the file, or the file is not a DuckDB database we can read. */
export class StoreOpenError extends Error {
  constructor(
    message: string,
    readonly kind: 'locked' | 'unreadable',
  ) {
    super(message);
  }
}

const isLockError = (m: string) => /could not set lock|conflicting lock/i.test(m);

/** BigInt → number (counts fit), nested lists and structs converted too. */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = plain(x);
    return o;
  }
  return v;
}

type DuckDB = typeof import('@duckdb/node-api');
let duckdb: DuckDB | null = null;

async function loadDuckDb(): Promise<DuckDB> {
  duckdb ??= await import('@duckdb/node-api');
  return duckdb;
}

/** DuckDB's column type ids (for appenders); there is always an open database when they are asked for. */
export function duckDbTypeIds(): typeof DuckDBTypeIds {
  if (!duckdb) throw new Error('DuckDB type ids asked for before any store was opened');
  return duckdb.DuckDBTypeId;
}

async function openOnce(path: string, readOnly: boolean): Promise<StoreDb> {
  const { DuckDBInstance } = await loadDuckDb();
  const options: Record<string, string> = readOnly ? { access_mode: 'READ_ONLY' } : {};
  // never reach out to the network for an extension: the store works offline
  options.autoinstall_known_extensions = 'false';
  let instance: Awaited<ReturnType<typeof DuckDBInstance.create>>;
  try {
    instance = await DuckDBInstance.create(path, options);
  } catch (e) {
    const m = (e as Error).message;
    throw new StoreOpenError(m, isLockError(m) ? 'locked' : 'unreadable');
  }
  const connection = await instance.connect();
  return {
    path,
    readOnly,
    connection,
    async all(sql, params) {
      const reader = await connection.runAndReadAll(sql, params);
      return reader.getRowObjectsJS().map((r) => plain(r) as Row);
    },
    async run(sql, params) {
      await connection.run(sql, params);
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * Opens the database at `path` (created when read-write and missing). Another process's lock is waited
 * out for up to `waitMs` (a `bench` adding its run while `serve` reads); then BG_E_STORE names the file.
 */
export async function openDb(
  path: string,
  opts: { readOnly?: boolean; waitMs?: number } = {},
): Promise<StoreDb> {
  const deadline = Date.now() + (opts.waitMs ?? 10_000);
  for (let delayMs = 25; ; delayMs = Math.min(500, delayMs * 2)) {
    try {
      return await openOnce(path, opts.readOnly === true);
    } catch (e) {
      if (!(e instanceof StoreOpenError) || e.kind !== 'locked') throw e;
      if (Date.now() + delayMs > deadline)
        throw new BenchgateError(
          'BG_E_STORE',
          `The results store ${path} is in use by another process (${e.message.split('\n')[0]}); try again when it has finished.`,
        );
      await sleep(delayMs);
    }
  }
}
