// Configuration facts of stored runs, for columns (`runs --show KEY`) and the dashboard's config diff.

import type { StoreDb } from './db.js';

/** Per run directory, the value of each asked key it has (keys it lacks are absent: unknown). */
export async function configValues(
  db: StoreDb,
  dirs: readonly string[],
  keys?: readonly string[],
): Promise<Map<string, Record<string, string>>> {
  const out = new Map<string, Record<string, string>>();
  if (dirs.length === 0 || (keys && keys.length === 0)) return out;
  const params = [...dirs, ...(keys ?? [])];
  const keySql = keys ? ` AND key IN (${keys.map(() => '?').join(', ')})` : '';
  const rows = await db.all(
    `SELECT dir, key, value FROM config WHERE dir IN (${dirs.map(() => '?').join(', ')})${keySql} ORDER BY key`,
    params,
  );
  for (const r of rows) {
    const dir = String(r.dir);
    const o = out.get(dir) ?? {};
    o[String(r.key)] = String(r.value);
    out.set(dir, o);
  }
  return out;
}
