// An imported result as a benchgate run: its manifest (the tool, the file, the tool's metric
// definitions, the workload the file states), its levels and rebuilt records, and the run directory
// written for it. A summary-only import (a printed result table, a file without per-request details)
// says so in its manifest and in the warnings every report shows.

import { mkdir, open } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import { benchgateVersion } from '../core/version.js';
import type { LevelKey, LevelSummary, RunSummary } from '../metrics/summary.js';
import { withholdUnsupported } from '../metrics/tail-samples.js';
import { planSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { levelFile, type Manifest, REQUESTS_FILE, SUMMARY_FILE } from './layout.js';
import { writeJsonAtomic, writeManifest } from './run-store.js';
import { writeRunValidity } from './validity-file.js';

export interface ImportedRun {
  manifest: Manifest;
  summary: RunSummary;
  records: RequestRecord[];
  warnings: string[];
}

type SourceTool = 'sglang-bench-serving' | 'vllm-bench-serve';

export interface ImportManifestOptions {
  tool: SourceTool;
  file: string;
  definitions: string;
  itl?: 'token' | 'chunk';
  name: string;
  levels: LevelKey[];
  workload: { inputTokens?: number | null; outputTokens?: number | null; dataset?: string | null };
  startedAt: string;
  /** Read from a printed result table: no per-request records, no confidence intervals. */
  printed?: boolean;
  /** The tool's `backend` field, when it has one. */
  backend?: string | null;
}

/**
 * The engine a benchmark tool's backend names: SGLang's and vLLM's tools call their own servers' clients
 * `sglang…` and `vllm…`; `openai…` and the like name only an API, so the engine stays unknown.
 */
export function engineOfBackend(backend: string | null | undefined): string | undefined {
  const b = (backend ?? '').toLowerCase();
  for (const [prefix, engine] of [
    ['sglang', 'sglang'],
    ['vllm', 'vllm'],
    ['tgi', 'tgi'],
    ['llama.cpp', 'llamacpp'],
    ['llamacpp', 'llamacpp'],
    ['lmdeploy', 'lmdeploy'],
    ['tensorrt-llm', 'trt-llm'],
    ['trt', 'trt-llm'],
  ] as const)
    if (b === prefix || b.startsWith(`${prefix}-`)) return engine;
  return undefined;
}

/** The sentence every report shows for a run without per-request records. */
export function summaryOnlyNote(file: string, printed: boolean): string {
  return printed
    ? `summary only: imported from the result table printed in ${file}; it has no per-request records, so no confidence intervals, and only the figures the table shows.`
    : `summary only: ${file} has no per-request records, so ratios have no confidence intervals.`;
}

function importPlan(opts: ImportManifestOptions): Manifest['plan'] {
  const kind = opts.levels.every((l) => l.kind === 'rate') ? 'rate' : 'concurrency';
  return planSchema.parse({
    name: opts.name,
    load: { kind, levels: opts.levels.map((l) => l.value) },
    workload: {
      dataset: opts.workload.dataset ?? 'random',
      ...(opts.workload.inputTokens ? { input_tokens: { fixed: opts.workload.inputTokens } } : {}),
      ...(opts.workload.outputTokens ? { output_tokens: { fixed: opts.workload.outputTokens } } : {}),
    },
  });
}

export function importManifest(opts: ImportManifestOptions): Manifest {
  return {
    schema: 'benchgate.manifest/1',
    runId: `import-${opts.name}`,
    name: opts.name,
    plan: importPlan(opts),
    planPath: null,
    versions: { benchgate: benchgateVersion(), node: process.version, os: `${process.platform}` },
    anchor: { monoMs: 0, wallIso: opts.startedAt, wallEpochMs: Date.parse(opts.startedAt) || 0 },
    verifiedTarget: null,
    checkpoint: null,
    forced: null,
    tokenizer: null,
    source: {
      tool: opts.tool,
      file: basename(opts.file),
      definitions: opts.definitions,
      ...(opts.itl ? { itl: opts.itl } : {}),
      ...(opts.printed ? { summaryOnly: 'printed-table' as const } : {}),
      ...(engineOfBackend(opts.backend) ? { engine: engineOfBackend(opts.backend) } : {}),
    },
    startedAt: opts.startedAt,
    // the tool finished the run it wrote; its own end time is not recorded, so the one time known is kept
    finishedAt: opts.startedAt,
  };
}

/**
 * The ImportedRun of an importer's levels (sorted by index) and the records of the levels it kept, with
 * its manifest; a run without records is marked summary-only (`detailsHow` says how to get them).
 */
export function assembleImportedRun(
  opts: Omit<ImportManifestOptions, 'levels'> & {
    levels: LevelSummary[];
    records: RequestRecord[];
    warnings: string[];
    detailsHow: string;
  },
): ImportedRun {
  const { levels, records, warnings, detailsHow, ...manifestOpts } = opts;
  levels.sort((a, b) => a.levelIndex - b.levelIndex);
  const manifest = importManifest({ ...manifestOpts, levels: levels.map((l) => l.level) });
  if (records.length === 0) {
    if (!manifest.source.summaryOnly) manifest.source.summaryOnly = 'no-details';
    warnings.unshift(
      opts.printed
        ? summaryOnlyNote(basename(opts.file), true)
        : `${summaryOnlyNote(basename(opts.file), false)} Run ${detailsHow} to keep them.`,
    );
  }
  return {
    manifest,
    summary: { schema: 'benchgate.summary/1', runId: manifest.runId, name: opts.name, levels },
    records: records.filter((r) => levels.some((l) => l.levelIndex === r.levelIndex)),
    warnings,
  };
}

export function defaultImportName(file: string): string {
  return (
    basename(file, extname(file))
      .replace(/[^\w.-]+/g, '-')
      .slice(0, 100) || 'imported'
  );
}

/** One JSON line per item, written in batches: a single joined string has a size limit (~512 MB). */
async function writeLines(path: string, items: readonly unknown[]): Promise<void> {
  const out = await open(path, 'w');
  try {
    for (let i = 0; i < items.length; i += 10_000) {
      const batch = items.slice(i, i + 10_000).map((r) => `${JSON.stringify(r)}\n`);
      await out.write(batch.join(''));
    }
  } finally {
    await out.close();
  }
}

/** Writes an imported run as <outRoot>/<runId>/ (manifest, summary, level files, requests). Returns the directory. */
export async function writeImportedRun(outRoot: string, run: ImportedRun): Promise<string> {
  const dir = join(outRoot, run.manifest.runId);
  try {
    await mkdir(dir, { recursive: true });
    writeManifest(dir, run.manifest);
    const summary = withholdUnsupported(run.summary);
    for (const l of summary.levels) writeJsonAtomic(join(dir, levelFile(l.levelIndex)), l);
    writeJsonAtomic(join(dir, SUMMARY_FILE), summary);
    await writeLines(join(dir, REQUESTS_FILE), run.records);
    // judged once, with the imported records: what every surface shows for this run
    writeRunValidity({ ...run, name: run.manifest.name, dir, summary, lossless: null });
  } catch (e) {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `Could not write the imported run to ${dir}: ${(e as Error).message}.`,
    );
  }
  return dir;
}
