// Flags every results-store command shares (--results, --store, the run filters) and their parsing into a
// store location and a RunFilter. Wiring only; the store lives in src/store/.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { BenchgateError } from '../../core/errors.js';
import { looksLikeRun } from '../../store/discover.js';
import { parseCondition, parseDate, type RunFilter } from '../../store/run-query.js';
import { STORE_FILE } from '../../store/schema.js';
import { type StoreLocation, storeLocation } from '../../store/store.js';

export interface StoreFlags {
  results?: string;
  store?: string;
}

export interface FilterFlags {
  name?: string;
  engine?: string;
  engineVersion?: string;
  where?: string[];
  validity?: string;
  since?: string;
  until?: string;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function withStoreOptions(cmd: Command): Command {
  return cmd
    .option(
      '--results <dir>',
      'results directory (default ./results, or this folder when it is one; the store lives in it unless --store says otherwise)',
    )
    .option(
      '--store <path>',
      'the store file (default <results>/benchgate-store.duckdb, or $BENCHGATE_STORE)',
    );
}

export function withFilterOptions(cmd: Command): Command {
  return cmd
    .option('--name <name>', 'run name (* matches anything)')
    .option('--engine <engine>', 'engine (sglang, vllm, llamacpp, tgi, openai)')
    .option('--engine-version <version>', 'engine version')
    .option(
      '--where <key=value>',
      'configuration fact, repeatable (speculative.algorithm=EAGLE3, tp_size!=8)',
      collect,
    )
    .option('--validity <list>', 'valid, suspect, invalid (comma-separated)')
    .option('--since <date>', 'runs started at or after this date (2026-12-01 or an ISO time)')
    .option('--until <date>', 'runs started at or before this date');
}

export function locationOf(flags: StoreFlags): StoreLocation {
  return storeLocation({ results: flags.results, store: flags.store });
}

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

/** This folder is a results directory: it holds the store, or run directories one level down. */
function isResultsFolder(dir: string): boolean {
  if (existsSync(join(dir, STORE_FILE))) return true;
  return readdirSync(dir, { withFileTypes: true }).some(
    (e) => e.isDirectory() && isDir(join(dir, e.name)) && looksLikeRun(readdirSync(join(dir, e.name))),
  );
}

/**
 * Where a command that only reads finds the store. It never creates a results directory or a store where
 * nothing was recorded: a missing --store file or results directory is a usage error saying so. Standing
 * inside a results directory (no ./results below it, no --results given), the store is found there.
 */
export function readLocation(
  flags: StoreFlags,
  env: Record<string, string | undefined> = process.env,
): StoreLocation {
  const loc = locationOf(flags);
  if (existsSync(loc.path)) return loc;
  const storeGiven =
    flags.store ?? (env.BENCHGATE_STORE?.toLowerCase() === 'off' ? undefined : env.BENCHGATE_STORE);
  if (storeGiven)
    throw new BenchgateError('BG_E_USAGE', `No results store at ${loc.path} (--store or BENCHGATE_STORE).`);
  const results = loc.roots[0];
  if (isDir(results)) return loc; // runs recorded there: the store is built from them
  if (flags.results === undefined && isResultsFolder(process.cwd()))
    return storeLocation({ results: process.cwd() }, env);
  throw new BenchgateError(
    'BG_E_USAGE',
    `No results directory at ${results}: nothing was recorded there. Pass --results DIR (where bench, run or import wrote), or record a run first (benchgate bench).`,
  );
}

const VALIDITIES = ['valid', 'suspect', 'invalid'];

export function filterOf(flags: FilterFlags): RunFilter {
  const validity = flags.validity?.split(',').map((s) => s.trim().toLowerCase());
  for (const v of validity ?? [])
    if (!VALIDITIES.includes(v))
      throw new BenchgateError('BG_E_USAGE', `--validity expects ${VALIDITIES.join(', ')}; found "${v}".`);
  return {
    name: flags.name,
    engine: flags.engine,
    engineVersion: flags.engineVersion,
    where: (flags.where ?? []).map((w) => parseCondition(w)),
    validity,
    since: flags.since ? parseDate(flags.since, '--since') : undefined,
    // a date alone means through the end of that day
    until: flags.until
      ? /^\d{4}-\d{2}-\d{2}$/.test(flags.until.trim())
        ? new Date(Date.parse(parseDate(flags.until, '--until')) + 86_399_999).toISOString()
        : parseDate(flags.until, '--until')
      : undefined,
  };
}

/** Lines for the user about the store (building, rebuilding) go to stderr. */
export const noteToStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
