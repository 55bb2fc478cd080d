// `benchgate query SQL`: SQL a user typed, run over the store. The sandbox is structural: the statement
// runs only on a connection opened with db.ts's SANDBOX_SETTINGS (read-only, no external access, no
// extensions, configuration locked), so whatever the statement is, it cannot write the store, read or
// write another file, reach the network or change those settings. On top of that only one plain query is
// accepted, as DuckDB's own parser sees it: a SELECT (WITH … SELECT, VALUES, TABLE, FROM, DESCRIBE,
// SHOW and SUMMARIZE parse as one) — never EXPLAIN (EXPLAIN ANALYZE executes what it explains), PRAGMA,
// SET, CALL, COPY, EXPORT, ATTACH, LOAD or INSTALL.

import { BenchgateError } from '../core/errors.js';
import type { Row, StoreDb } from './db.js';

/** DuckDB's statement type (StatementType in @duckdb/node-bindings) of a SELECT. */
const SELECT_STATEMENT = 1;
/** Most rows one query returns: a result is streamed up to one row past it, never held whole. */
export const MAX_QUERY_ROWS = 200_000;

export interface QueryResult {
  columns: string[];
  rows: Row[];
}

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

function failed(e: unknown): BenchgateError {
  return new BenchgateError('BG_E_QUERY', `The query failed: ${firstLine(e)}`);
}

function refused(why: string): BenchgateError {
  return new BenchgateError(
    'BG_E_QUERY',
    `The query is refused: ${why}; only one plain SELECT runs (the store is read-only here, \`benchgate index\` is what writes it).`,
  );
}

/**
 * DuckDB's parser's own verdict on `sql`: json_serialize_sql serialises SELECT statements only and says
 * so for anything else (PRAGMA, EXPLAIN, SET, COPY …), before any rewrite turns a PRAGMA into a SELECT.
 */
async function parsedAsOneSelect(db: StoreDb, sql: string): Promise<void> {
  let parsed: { error?: boolean; error_message?: string; statements?: { node?: { type?: string } }[] };
  try {
    const [row] = await db.all('SELECT json_serialize_sql(?::VARCHAR) AS parsed', [sql]);
    parsed = JSON.parse(String(row?.parsed));
  } catch (e) {
    throw refused(`DuckDB's parser could not check it (${firstLine(e)})`);
  }
  if (parsed.error) {
    const message = parsed.error_message ?? 'unknown parser error';
    if (/only select statements/i.test(message)) throw refused('it is not a SELECT statement');
    throw failed(message);
  }
  const statements = parsed.statements ?? [];
  if (statements.length !== 1) throw refused(`it holds ${statements.length} statements`);
}

function plainRows(reader: { getRowObjectsJS(): Record<string, unknown>[] }): Row[] {
  return reader.getRowObjectsJS().map((r) => {
    const o: Row = {};
    for (const [k, v] of Object.entries(r)) o[k] = typeof v === 'bigint' ? Number(v) : v;
    return o;
  });
}

/**
 * Runs one plain SELECT on a sandboxed connection; BG_E_QUERY for a refused statement, an SQL error or a
 * result of more than `maxRows` rows (refused whole: no silently cut table).
 */
export async function readOnlyQuery(
  db: StoreDb,
  sql: string,
  maxRows = MAX_QUERY_ROWS,
): Promise<QueryResult> {
  if (!db.sandboxed) throw refused('the store was not opened in the query sandbox');
  await parsedAsOneSelect(db, sql);
  let prepared: Awaited<ReturnType<StoreDb['connection']['prepare']>>;
  try {
    prepared = await db.connection.prepare(sql);
  } catch (e) {
    throw failed(e);
  }
  if (Number(prepared.statementType) !== SELECT_STATEMENT)
    throw refused(`DuckDB prepares it as statement type ${prepared.statementType}, not a SELECT`);
  let reader: Awaited<ReturnType<typeof prepared.streamAndReadUntil>>;
  try {
    reader = await prepared.streamAndReadUntil(maxRows + 1);
  } catch (e) {
    throw failed(e);
  }
  if (reader.currentRowCount > maxRows)
    throw new BenchgateError(
      'BG_E_QUERY',
      `The query returns more than ${maxRows} rows; add a LIMIT or aggregate (\`benchgate export --parquet\` writes whole tables).`,
    );
  return { columns: reader.columnNames(), rows: plainRows(reader) };
}
