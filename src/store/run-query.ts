// Which runs the store holds, filtered the way `benchgate runs`, `history`, `gate` and the dashboard ask:
// by name (with * wildcards), engine and version, any configuration fact (`speculative.algorithm=EAGLE3`,
// `workload.input_tokens!={"fixed":1024}`), validity, status, fingerprints and start date. Values compare
// as the store keeps them (the canonical forms of docs/normalised-keys.md), ignoring case.

import { BenchgateError } from '../core/errors.js';
import type { Params, Row, StoreDb } from './db.js';

export interface Condition {
  key: string;
  op: '=' | '!=';
  value: string;
}

export interface RunFilter {
  name?: string;
  engine?: string;
  engineVersion?: string;
  where?: Condition[];
  validity?: string[];
  status?: string;
  /** ISO date or time: runs started at or after it. */
  since?: string;
  until?: string;
  configFingerprint?: string;
  workloadFingerprint?: string;
  /** Exact run directories. */
  dirs?: string[];
}

export interface RunListRow {
  id: string;
  dir: string;
  name: string;
  source: string;
  engine: string | null;
  engineVersion: string | null;
  model: string | null;
  gpus: number | null;
  validity: 'valid' | 'suspect' | 'invalid';
  status: string;
  startedAt: string | null;
  finishedAt: string | null;
  levelCount: number;
  configFingerprint: string | null;
  workloadFingerprint: string | null;
  matrixDir: string | null;
  loadKind: string | null;
}

/** `KEY=VALUE` or `KEY!=VALUE`, naming the flag on error. */
export function parseCondition(text: string, flag = '--where'): Condition {
  const m = /^([^=!]+?)\s*(!=|=)\s*(.*)$/s.exec(text);
  if (!m || m[1].trim() === '')
    throw new BenchgateError(
      'BG_E_USAGE',
      `${flag} expects KEY=VALUE or KEY!=VALUE (e.g. speculative.algorithm=EAGLE3); found "${text}".`,
    );
  return { key: m[1].trim(), op: m[2] as '=' | '!=', value: m[3].trim() };
}

/** An ISO date or date-time as a UTC ISO string, naming the flag on error. */
export function parseDate(text: string, flag: string): string {
  const t = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim()) || !Number.isFinite(t))
    throw new BenchgateError(
      'BG_E_USAGE',
      `${flag} expects a date such as 2026-12-01 or 2026-12-01T14:00Z; found "${text}".`,
    );
  return new Date(t).toISOString();
}

const RUN_COLUMNS = `id, dir, name, source, engine, engine_version, model, gpus, validity, status, started_at,
  finished_at, level_count, config_fingerprint, workload_fingerprint, matrix_dir, load_kind`;

function toRow(r: Row): RunListRow {
  return {
    id: String(r.id),
    dir: String(r.dir),
    name: String(r.name),
    source: String(r.source),
    engine: (r.engine as string) ?? null,
    engineVersion: (r.engine_version as string) ?? null,
    model: (r.model as string) ?? null,
    gpus: (r.gpus as number) ?? null,
    validity: r.validity as RunListRow['validity'],
    status: String(r.status),
    startedAt: (r.started_at as string) ?? null,
    finishedAt: (r.finished_at as string) ?? null,
    levelCount: Number(r.level_count),
    configFingerprint: (r.config_fingerprint as string) ?? null,
    workloadFingerprint: (r.workload_fingerprint as string) ?? null,
    matrixDir: (r.matrix_dir as string) ?? null,
    loadKind: (r.load_kind as string) ?? null,
  };
}

/** The SQL condition and parameters for a filter. */
export function filterSql(f: RunFilter): { sql: string; params: Params } {
  const parts: string[] = [];
  const params: Params = [];
  const add = (sql: string, ...values: Params) => {
    parts.push(sql);
    params.push(...values);
  };
  if (f.name) add("name ILIKE ? ESCAPE '\\'", f.name.replace(/[%_\\]/g, (c) => `\\${c}`).replace(/\*/g, '%'));
  if (f.engine) add('lower(engine) = lower(?)', f.engine);
  if (f.engineVersion) add('lower(engine_version) = lower(?)', f.engineVersion);
  for (const c of f.where ?? [])
    add(
      `dir ${c.op === '=' ? 'IN' : 'NOT IN'} (SELECT dir FROM config WHERE key = ? AND lower(value) = lower(?))`,
      c.key,
      c.value,
    );
  if (f.validity?.length) add(`validity IN (${f.validity.map(() => '?').join(', ')})`, ...f.validity);
  if (f.status) add('status = ?', f.status);
  if (f.since) add('started_at >= ?', f.since);
  if (f.until) add('started_at <= ?', f.until);
  if (f.configFingerprint) add('config_fingerprint = ?', f.configFingerprint);
  if (f.workloadFingerprint) add('workload_fingerprint = ?', f.workloadFingerprint);
  if (f.dirs) add(f.dirs.length ? `dir IN (${f.dirs.map(() => '?').join(', ')})` : 'false', ...f.dirs);
  return { sql: parts.length ? parts.join(' AND ') : 'true', params };
}

/** Matching runs, oldest first. */
export async function listRuns(db: StoreDb, f: RunFilter = {}): Promise<RunListRow[]> {
  const { sql, params } = filterSql(f);
  const rows = await db.all(
    `SELECT ${RUN_COLUMNS} FROM runs WHERE ${sql} ORDER BY started_at NULLS FIRST, id`,
    params,
  );
  return rows.map(toRow);
}

/**
 * The run a user named: its id, its directory (absolute or relative), or its name (the latest run of that
 * name). BG_E_USAGE when nothing or more than one run matches.
 */
export async function findRun(db: StoreDb, ref: string, cwdDir: string): Promise<RunListRow> {
  const byId = await listRuns(db, {});
  const hits = byId.filter((r) => r.id === ref || r.dir === ref || r.dir === cwdDir);
  if (hits.length === 1) return hits[0];
  if (hits.length > 1)
    throw new BenchgateError(
      'BG_E_USAGE',
      `"${ref}" names several runs in the store: ${hits.map((h) => h.dir).join(', ')}.`,
    );
  const named = byId.filter((r) => r.name === ref);
  if (named.length > 0) return named[named.length - 1];
  throw new BenchgateError(
    'BG_E_USAGE',
    `No run "${ref}" in the store (by id, directory or name); \`benchgate runs\` lists them, \`benchgate index\` adds new directories.`,
  );
}
