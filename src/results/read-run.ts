// Reads a run directory (manifest.json, summary.json or level-NN.json, requests.jsonl) into a LoadedRun.
// Tolerates what a killed run leaves behind (no summary.json, a truncated last line) and says so;
// anything that is not a run at all is one clear BG_E_RUN_DIR sentence.

import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import { parsePythonJson } from '../core/python-json.js';
import type { LevelSummary, RunSummary } from '../metrics/summary.js';
import type { RequestRecord } from '../records/request-record.js';
import { summaryOnlyNote } from './import-run.js';
import {
  isStoreFileName,
  type LoadedRun,
  MANIFEST_FILE,
  type Manifest,
  REQUESTS_FILE,
  SUMMARY_FILE,
} from './layout.js';
import { readLosslessRecord } from './lossless-file.js';
import { checkLevel, checkLevels, checkManifest, checkRecord } from './run-shape.js';
import { judgeRun } from './run-validity.js';
import { readSloSearchRecord } from './slo-search-file.js';
import { readTelemetryFiles } from './telemetry-files.js';
import { readStoredValidity } from './validity-file.js';

/** A path that is not a run is the user's mistake (exit 2, as a wrong flag is); a broken run stays exit 1. */
const NOT_A_RUN = { exitCode: 2 };

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new BenchgateError('BG_E_RUN_DIR', `Could not read ${path}: ${(e as Error).message}.`);
  }
}

function parseJsonFile<T>(text: string, path: string): T {
  try {
    return parsePythonJson(text) as T;
  } catch (e) {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `Expected JSON in ${path}; it does not parse (${(e as Error).message}).`,
    );
  }
}

/** Parses requests.jsonl; a broken final line (a killed run) is dropped with a warning, a broken middle line is an error. */
export function parseRequestsJsonl(
  text: string,
  path: string,
): { records: RequestRecord[]; warning: string | null } {
  const lines = text.split('\n');
  const records: RequestRecord[] = [];
  let warning: string | null = null;
  const lastNonEmpty = lines.reduce((acc, l, i) => (l.trim() ? i : acc), -1);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (i === lastNonEmpty) {
        warning = `${path}: the last line (${i + 1}) is incomplete, as a killed run leaves it; using the ${records.length} complete records before it.`;
        break;
      }
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `Expected one JSON request record per line in ${path}; line ${i + 1} is not valid JSON.`,
      );
    }
    records.push(checkRecord(parsed, path, i + 1));
  }
  return { records, warning };
}

async function readManifest(abs: string, dir: string): Promise<Manifest | null> {
  const path = join(dir, MANIFEST_FILE);
  const text = await readText(join(abs, MANIFEST_FILE));
  if (text === null) return null;
  const manifest = parseJsonFile<Manifest>(text, path);
  if (manifest === null || typeof manifest !== 'object' || manifest.schema !== 'benchgate.manifest/1')
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `Expected ${path} to be a benchgate manifest (schema "benchgate.manifest/1"); found something else.`,
    );
  return checkManifest(manifest, path);
}

/** summary.json, or (a run that did not finish) a summary of the level files it wrote. */
async function readSummary(
  abs: string,
  dir: string,
  manifest: Manifest | null,
  warnings: string[],
): Promise<RunSummary> {
  const path = join(dir, SUMMARY_FILE);
  const text = await readText(join(abs, SUMMARY_FILE));
  if (text !== null) {
    const summary = parseJsonFile<RunSummary>(text, path);
    if (summary?.schema !== 'benchgate.summary/1' || !Array.isArray(summary.levels))
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `Expected ${path} to be a benchgate summary (schema "benchgate.summary/1"); found something else.`,
      );
    checkLevels(summary.levels, path, 'levels');
    if (summary.incomplete) warnings.push(`${dir} ended early: ${summary.incomplete.reason}.`);
    return summary;
  }
  const files = (await readdir(abs)).filter((f) => /^level-\d+\.json$/.test(f)).sort();
  if (manifest === null && files.length === 0)
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `Expected a benchgate run in ${dir} (manifest.json, summary.json or level-NN.json); found none of them.`,
      NOT_A_RUN,
    );
  const levels: LevelSummary[] = [];
  for (const f of files)
    levels.push(checkLevel(parseJsonFile((await readText(join(abs, f))) ?? '', join(dir, f)), join(dir, f)));
  warnings.push(
    `${dir} has no summary.json (the run did not finish); using the ${levels.length} level file(s) it wrote.`,
  );
  return {
    schema: 'benchgate.summary/1',
    runId: manifest?.runId ?? basename(abs),
    name: manifest?.name ?? basename(abs),
    levels,
    incomplete: { reason: 'no summary.json' },
  };
}

async function readRecords(abs: string, dir: string, warnings: string[]): Promise<RequestRecord[]> {
  const text = await readText(join(abs, REQUESTS_FILE));
  if (text === null) return [];
  const parsed = parseRequestsJsonl(text, join(dir, REQUESTS_FILE));
  if (parsed.warning) warnings.push(parsed.warning);
  return parsed.records.filter((r) => !r.warmup);
}

async function readSloSearch(abs: string, dir: string, manifest: Manifest | null, warnings: string[]) {
  const sloSearch = await readSloSearchRecord(abs);
  if (sloSearch.kind === 'unreadable')
    warnings.push(`the SLO search outcome is unreadable: ${sloSearch.reason} (got: ${sloSearch.excerpt}).`);
  else if (sloSearch.kind === 'unknown' && manifest?.plan?.load?.kind === 'slo_search')
    warnings.push(
      `the plan is an SLO search but ${dir} has no slo-search.json (the search did not finish); its probes are shown as levels only.`,
    );
  return sloSearch;
}

export async function readRun(dir: string): Promise<LoadedRun> {
  const abs = resolve(dir);
  const st = await stat(abs).catch(() => null);
  if (!st?.isDirectory()) {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `Expected a run directory at ${dir}; ${st ? 'it is a file' : 'nothing is there'}.`,
      NOT_A_RUN,
    );
  }
  const warnings: string[] = [];
  const manifest = await readManifest(abs, dir);
  const summaryOnly = manifest?.source?.summaryOnly;
  if (summaryOnly)
    warnings.push(summaryOnlyNote(manifest.source.file ?? basename(abs), summaryOnly === 'printed-table'));
  const summary = await readSummary(abs, dir, manifest, warnings);
  const records = await readRecords(abs, dir, warnings);
  const telemetry = await readTelemetryFiles(abs);
  warnings.push(...telemetry.warnings);
  const sloSearch = await readSloSearch(abs, dir, manifest, warnings);
  const run: LoadedRun = {
    name: manifest?.name || summary.name || basename(abs),
    dir: abs,
    manifest,
    summary,
    records,
    warnings,
    lossless: await readLosslessRecord(abs),
    telemetry: telemetry.levels,
    sloSearch,
  };
  // the stored judgement while it matches the files; otherwise judged once, here, for every surface
  run.validity = (await readStoredValidity(abs, run)) ?? judgeRun(run);
  return run;
}

async function isRunDir(dir: string): Promise<boolean> {
  const files = await readdir(dir).catch(() => [] as string[]);
  return files.some((f) => f === MANIFEST_FILE || f === SUMMARY_FILE || /^level-\d+\.json$/.test(f));
}

/**
 * The arguments without the results store's files, which `compare results/*` names beside the runs; when
 * nothing else is named they stay, and are refused as files that are not runs.
 */
function withoutStoreFiles(dirs: readonly string[]): readonly string[] {
  const runs = dirs.filter((d) => !isStoreFileName(basename(d)));
  return runs.length > 0 ? runs : dirs;
}

/**
 * A matrix directory (<out>/<matrix-id>/ holding one run per configuration) stands for its runs, in the
 * order they started; any other directory stands for itself.
 */
export async function expandRunDirs(dirs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const dir of withoutStoreFiles(dirs)) {
    const st = await stat(dir).catch(() => null);
    if (!st?.isDirectory() || (await isRunDir(dir))) {
      out.push(dir);
      continue;
    }
    const runs = await runsInside(dir);
    if (runs.length === 0) await refuseResultsFolder(dir);
    out.push(...(runs.length > 0 ? runs : [dir]));
  }
  return out;
}

/** The run directories directly inside `dir`, in the order they started. */
async function runsInside(dir: string): Promise<string[]> {
  const children: { path: string; startedAt: string }[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (!e.isDirectory() || !(await isRunDir(path))) continue;
    const m = await readText(join(path, MANIFEST_FILE)).catch(() => null);
    let startedAt = '';
    try {
      startedAt = m ? String((JSON.parse(m) as Manifest).startedAt ?? '') : '';
    } catch {
      startedAt = '';
    }
    children.push({ path, startedAt });
  }
  return children
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.path.localeCompare(b.path))
    .map((c) => c.path);
}

/**
 * A results folder (matrix directories inside, no run of its own) is not read as one run: it may hold
 * runs of every workload and day. The error names the matrices it holds and how to compare one.
 */
async function refuseResultsFolder(dir: string): Promise<void> {
  const matrices: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory() && (await runsInside(join(dir, e.name))).length > 0) matrices.push(e.name);
  }
  if (matrices.length === 0) return;
  matrices.sort();
  const shown = matrices.length > 3 ? `${matrices.slice(0, 3).join(', ')}, …` : matrices.join(', ');
  throw new BenchgateError(
    'BG_E_RUN_DIR',
    `${dir} is a results folder, not a run: it holds ${matrices.length} matri${matrices.length === 1 ? 'x' : 'ces'} of runs (${shown}). Name one (${join(dir, matrices[0])}) or the runs themselves; \`benchgate runs\` lists every run.`,
  );
}

/**
 * The run directories `benchgate report` reads for `dir`: the run itself, or the configs of a matrix
 * (a directory with matrix-state.json). Any other folder of runs (a results folder) is refused naming
 * how many runs it holds: a report is of one run; compare reads several.
 */
export async function reportRunDirs(dir: string): Promise<string[]> {
  const dirs = await expandRunDirs([dir]);
  if (dirs.length === 1 && dirs[0] === dir) return dirs;
  const matrix = await stat(join(dir, 'matrix-state.json')).catch(() => null);
  if (matrix?.isFile()) return dirs;
  const names = dirs.map((d) => basename(d));
  const shown = names.length > 3 ? `${names.slice(0, 3).join(', ')}, …` : names.join(', ');
  throw new BenchgateError(
    'BG_E_RUN_DIR',
    `${dir} is not a run directory; it holds ${dirs.length} run${dirs.length === 1 ? '' : 's'} (${shown}). Report one of them (benchgate report ${join(dir, names[0])}) or compare them (benchgate compare ${dir}).`,
  );
}

/** Reads several runs (a matrix directory counts as its runs) and makes their names unique (a repeated name gets its directory name appended). */
export async function readRuns(dirs: readonly string[]): Promise<LoadedRun[]> {
  const runs = await Promise.all((await expandRunDirs(dirs)).map(readRun));
  const seen = new Map<string, number>();
  for (const r of runs) seen.set(r.name, (seen.get(r.name) ?? 0) + 1);
  const used = new Set<string>();
  for (const r of runs) {
    if ((seen.get(r.name) ?? 0) > 1) r.name = `${r.name}@${basename(r.dir)}`;
    let n = r.name;
    for (let i = 2; used.has(n); i++) n = `${r.name}#${i}`;
    r.name = n;
    used.add(n);
  }
  return runs;
}
