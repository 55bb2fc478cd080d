// The one place that talks to DuckDB (@duckdb/node-api): open a database file read-write or read-only,
// run statements with bound parameters, read rows as plain JS values, close. DuckDB lets one process
// write a file at a time, so an open that meets another process's lock is retried for a while before
// it becomes BG_E_STORE; any other failure to open says the file is not a usable store. DuckDB's
// native module is loaded at the first open, so a command that never opens the store never loads it.
// A sandboxed open (for SQL a user typed) is read-only with every outside reach turned off and the
// configuration locked before the connection is handed out, so no statement can turn them back on.

import { setTimeout as sleep } from 'node:timers/promises';
import type { DuckDBConnection, DuckDBTypeId as DuckDBTypeIds, DuckDBValue } from '@duckdb/node-api';
import { BenchgateError } from '../core/errors.js';

export type Row = Record<string, unknown>;
export type Params = DuckDBValue[];

export interface StoreDb {
  readonly path: string;
  readonly readOnly: boolean;
  /** Opened with SANDBOX_SETTINGS: no file, network or extension outside the store, configuration locked. */
  readonly sandboxed: boolean;
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

/**
 * DuckDB's settings for running SQL nobody vetted (DuckDB's "Securing DuckDB" page): the store file
 * read-only, no other file, directory or URL (COPY, EXPORT, ATTACH, read_csv, glob, INSTALL all need
 * external access), no extension loaded or fetched, no secret persisted, and then the configuration
 * locked so that SET cannot undo any of it. Applied when the instance is created, before any statement.
 */
export const SANDBOX_SETTINGS: Readonly<Record<string, string>> = {
  access_mode: 'READ_ONLY',
  enable_external_access: 'false',
  allow_community_extensions: 'false',
  allow_unsigned_extensions: 'false',
  autoload_known_extensions: 'false',
  autoinstall_known_extensions: 'false',
  allow_persistent_secrets: 'false',
  lock_configuration: 'true',
};

/** Fails closed when a sandboxed instance does not report the sandbox's settings as in force. */
async function proveSandbox(connection: DuckDBConnection): Promise<void> {
  const names = Object.keys(SANDBOX_SETTINGS).filter((k) => k !== 'access_mode');
  const reader = await connection.runAndReadAll(
    `SELECT name, value FROM duckdb_settings() WHERE name IN (${names.map(() => '?').join(', ')})`,
    names,
  );
  const seen = new Map(reader.getRowsJS().map(([n, v]) => [String(n), String(v)]));
  const off = names.filter((n) => seen.get(n)?.toLowerCase() !== SANDBOX_SETTINGS[n]);
  if (off.length)
    throw new StoreOpenError(`the query sandbox is not in force (${off.join(', ')})`, 'unreadable');
}

async function openOnce(path: string, readOnly: boolean, sandboxed: boolean): Promise<StoreDb> {
  const { DuckDBInstance } = await loadDuckDb();
  const options: Record<string, string> = sandboxed
    ? { ...SANDBOX_SETTINGS }
    : readOnly
      ? { access_mode: 'READ_ONLY' }
      : {};
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
  if (sandboxed)
    await proveSandbox(connection).catch((e) => {
      connection.closeSync();
      instance.closeSync();
      throw e;
    });
  return {
    path,
    readOnly: readOnly || sandboxed,
    sandboxed,
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
 * `sandboxed` opens it read-only under SANDBOX_SETTINGS (implies `readOnly`).
 */
export async function openDb(
  path: string,
  opts: { readOnly?: boolean; sandboxed?: boolean; waitMs?: number } = {},
): Promise<StoreDb> {
  const deadline = Date.now() + (opts.waitMs ?? 10_000);
  for (let delayMs = 25; ; delayMs = Math.min(500, delayMs * 2)) {
    try {
      return await openOnce(path, opts.readOnly === true, opts.sandboxed === true);
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
