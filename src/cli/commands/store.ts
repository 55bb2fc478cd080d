// `benchgate index`, `benchgate runs` and `benchgate query`: flag parsing and wiring only. The store
// (open, rebuild, filters, read-only SQL) lives in src/store/.

import { resolve } from 'node:path';
import type { Command } from 'commander';
import { BenchgateError } from '../../core/errors.js';
import { indexRoots } from '../../store/index-runs.js';
import { readOnlyQuery } from '../../store/query.js';
import { configValues } from '../../store/run-config.js';
import { listRuns } from '../../store/run-query.js';
import { openStore, openStoreReadOnly, storeLocation } from '../../store/store.js';
import { textTable } from '../../store/text-table.js';
import { action } from '../action.js';
import {
  type FilterFlags,
  filterOf,
  locationOf,
  noteToStderr,
  readLocation,
  type StoreFlags,
  withFilterOptions,
  withStoreOptions,
} from './store-options.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

function parseFormat(v: string, allowed: readonly string[]): string {
  if (allowed.includes(v)) return v;
  throw new BenchgateError('BG_E_USAGE', `--format expects one of ${allowed.join(', ')}; found "${v}".`);
}

async function indexCommand(dirs: string[], flags: StoreFlags): Promise<number> {
  // `index RESULTS_DIR` alone builds that directory's own store (as the store's errors say to run it)
  const envStore = process.env.BENCHGATE_STORE;
  const oneDir =
    dirs.length === 1 && !flags.results && !flags.store && (!envStore || envStore.toLowerCase() === 'off');
  const loc = oneDir ? storeLocation({ results: dirs[0] }) : locationOf(flags);
  const given = dirs.map((d) => resolve(d));
  const { db, rebuilt } = await openStore({ ...loc, roots: given.length ? given : loc.roots }, noteToStderr);
  try {
    let outcome = rebuilt;
    let roots = given.length ? given : loc.roots;
    if (!outcome) {
      const recorded = (await db.all('SELECT dir FROM roots ORDER BY dir')).map((r) => String(r.dir));
      if (!given.length && recorded.length) roots = recorded;
      outcome = await indexRoots(db, roots);
    }
    for (const f of outcome.failed) process.stderr.write(`benchgate: skipped ${f.dir}: ${f.reason}\n`);
    process.stdout.write(
      `indexed ${outcome.indexed.length} run(s) (${outcome.requests} request records) from ${roots.join(', ')} into ${loc.path}\n`,
    );
    return 0;
  } finally {
    db.close();
  }
}

interface RunsFlags extends StoreFlags, FilterFlags {
  format: string;
  show?: string[];
}

async function runsCommand(flags: RunsFlags): Promise<number> {
  const format = parseFormat(flags.format, ['text', 'json']);
  const filter = filterOf(flags);
  const db = await openStoreReadOnly(readLocation(flags), noteToStderr);
  try {
    const runs = await listRuns(db, filter);
    const keys = (flags.show ?? [])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean);
    const shown = await configValues(
      db,
      runs.map((r) => r.dir),
      keys,
    );
    if (format === 'json') {
      const out = runs.map((r) => ({ ...r, config: shown.get(r.dir) ?? {} }));
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return 0;
    }
    if (runs.length === 0) {
      process.stderr.write('benchgate: no run in the store matches.\n');
      return 0;
    }
    const columns = ['id', 'name', 'engine', 'version', 'validity', 'status', 'started', 'levels', ...keys];
    const rows = runs.map((r) => [
      ...[r.id, r.name, r.engine, r.engineVersion, r.validity.toUpperCase(), r.status],
      ...[r.startedAt?.replace(/\.\d+Z$/, 'Z') ?? null, r.levelCount],
      ...keys.map((k) => shown.get(r.dir)?.[k] ?? null),
    ]);
    process.stdout.write(textTable(columns, rows));
    return 0;
  } finally {
    db.close();
  }
}

async function queryCommand(sql: string, flags: StoreFlags & { format: string }): Promise<number> {
  const format = parseFormat(flags.format, ['text', 'json', 'csv']);
  const db = await openStoreReadOnly(readLocation(flags), noteToStderr, { sandboxed: true });
  try {
    const { columns, rows } = await readOnlyQuery(db, sql);
    if (format === 'json') process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else if (format === 'csv') {
      const cell = (v: unknown) => {
        const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
        return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
      };
      process.stdout.write(
        `${[columns.join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\n')}\n`,
      );
    } else
      process.stdout.write(
        textTable(
          columns,
          rows.map((r) => columns.map((c) => r[c])),
        ),
      );
    return 0;
  } finally {
    db.close();
  }
}

export function registerStore(program: Command): void {
  withStoreOptions(
    program
      .command('index')
      .description(
        'Rebuild the results store from run directories (default: the directories it was built from, else --results).',
      )
      .argument('[dirs...]', 'results, matrix or run directories'),
  ).action(action(indexCommand));

  withFilterOptions(
    withStoreOptions(
      program
        .command('runs')
        .description(
          'List the runs in the results store, filtered by name, engine, configuration, validity and date.',
        )
        .option(
          '--show <keys>',
          'also show these configuration facts as columns (comma-separated or repeated)',
          collect,
        )
        .option('--format <format>', 'text | json', 'text'),
    ),
  ).action(action(runsCommand));

  withStoreOptions(
    program
      .command('query')
      .description(
        'Run read-only SQL (one SELECT) over the results store; tables: runs, config, levels, requests, roots, meta.',
      )
      .argument('<sql>', 'the SELECT statement')
      .option('--format <format>', 'text | json | csv', 'text'),
  ).action(action(queryCommand));
}
