// `benchgate export --parquet DIR`: the matching runs' request records (with the latencies the project's
// metric definitions derive), level summaries and run rows as Parquet files, for pandas and polars users.
// Written by DuckDB's COPY into DIR; each file is replaced whole.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import type { StoreDb } from './db.js';
import { filterSql, type RunFilter } from './run-query.js';

// The run's key is `run` (its short id) in all three files, so they join on one name.
const EXPORTS = {
  'runs.parquet':
    'SELECT r.id AS run, r.* EXCLUDE (id) FROM runs r WHERE SELECTED ORDER BY r.started_at, r.id',
  'levels.parquet': `SELECT r.id AS run, r.name, l.* FROM levels l JOIN runs r ON r.dir = l.dir
    WHERE SELECTED ORDER BY r.started_at, r.id, l.level_index`,
  'requests.parquet': `SELECT r.id AS run, r.name, l.label AS level, q.* FROM requests q
    JOIN runs r ON r.dir = q.dir LEFT JOIN levels l ON l.dir = q.dir AND l.level_index = q.level_index
    WHERE SELECTED ORDER BY r.started_at, r.id, q.id`,
};

export async function exportParquet(
  db: StoreDb,
  dir: string,
  filter: RunFilter,
): Promise<{ path: string; rows: number }[]> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new BenchgateError(
      'BG_E_USAGE',
      `--parquet: cannot create the directory ${dir} (${(e as Error).message}).`,
    );
  }
  const { sql, params } = filterSql(filter);
  const selected = `r.dir IN (SELECT dir FROM runs WHERE ${sql})`;
  const out: { path: string; rows: number }[] = [];
  for (const [file, query] of Object.entries(EXPORTS)) {
    const path = join(dir, file);
    const select = query.replace('SELECTED', selected);
    await db.run(`COPY (${select}) TO '${path.replace(/'/g, "''")}' (FORMAT parquet)`, params);
    const counted = await db.all(`SELECT count(*) AS n FROM (${select})`, params);
    out.push({ path, rows: Number(counted[0]?.n ?? 0) });
  }
  return out;
}
