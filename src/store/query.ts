// `benchgate query SQL`: read-only SQL over the store. The store is opened read-only, and each statement is
// prepared and refused unless it is a SELECT (or EXPLAIN of one): no INSERT, COPY, ATTACH, SET, PRAGMA or
// INSTALL reaches the database, so a query can never change the store or write files.

import { BenchgateError } from '../core/errors.js';
import type { Row, StoreDb } from './db.js';

/** DuckDB's statement types (StatementType in @duckdb/node-bindings) a query may use. */
const SELECT = 1;
const EXPLAIN = 4;
const TYPE_NAMES: Record<number, string> = {
  2: 'INSERT',
  3: 'UPDATE',
  5: 'DELETE',
  7: 'CREATE',
  9: 'ALTER',
  10: 'TRANSACTION',
  11: 'COPY',
  13: 'SET',
  15: 'DROP',
  16: 'EXPORT',
  17: 'PRAGMA',
  19: 'CALL',
  20: 'SET',
  21: 'LOAD',
  23: 'INSTALL',
  25: 'ATTACH',
  26: 'DETACH',
  28: 'COPY DATABASE',
};

export interface QueryResult {
  columns: string[];
  rows: Row[];
}

function failed(e: unknown): BenchgateError {
  const first = (e instanceof Error ? e.message : String(e)).split('\n')[0];
  return new BenchgateError('BG_E_QUERY', `The query failed: ${first}`);
}

/** Runs one read-only statement; BG_E_QUERY for a refused statement or an SQL error. */
export async function readOnlyQuery(db: StoreDb, sql: string): Promise<QueryResult> {
  let statements: Awaited<ReturnType<StoreDb['connection']['extractStatements']>>;
  try {
    statements = await db.connection.extractStatements(sql);
  } catch (e) {
    throw failed(e);
  }
  if (statements.count !== 1)
    throw new BenchgateError('BG_E_QUERY', `benchgate query runs one statement; found ${statements.count}.`);
  let prepared: Awaited<ReturnType<typeof statements.prepare>>;
  try {
    prepared = await statements.prepare(0);
  } catch (e) {
    throw failed(e);
  }
  const type = Number(prepared.statementType);
  if (type !== SELECT && type !== EXPLAIN)
    throw new BenchgateError(
      'BG_E_QUERY',
      `The store is read-only here: ${TYPE_NAMES[type] ?? `statement type ${type}`} is refused; only SELECT (and EXPLAIN) run. \`benchgate index\` is what writes the store.`,
    );
  try {
    const reader = await prepared.runAndReadAll();
    const columns = reader.columnNames();
    const rows = reader.getRowObjectsJS().map((r) => {
      const o: Row = {};
      for (const [k, v] of Object.entries(r)) o[k] = typeof v === 'bigint' ? Number(v) : v;
      return o;
    });
    return { columns, rows };
  } catch (e) {
    throw failed(e);
  }
}
