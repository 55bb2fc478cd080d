// `benchgate import`: another tool's results (a file it wrote or the table it printed) as one benchgate
// run. Reads the file into result objects (import-source.ts), decides which tool wrote them (--from, or
// from their keys with --from auto), maps each onto a level (import-sglang.ts, import-vllm.ts) and
// assembles the run with its workload and the tool's metric definitions.

import type { LevelSummary } from '../metrics/summary.js';
import type { RequestRecord } from '../records/request-record.js';
import { crossCheckResult, statedTotals } from './import-cross-check.js';
import { ResultFields } from './import-fields.js';
import { assembleImportedRun, defaultImportName, type ImportedRun } from './import-run.js';
import {
  ITL_DEFINITIONS,
  type ItlOrigin,
  SGLANG_COMMON_DEFINITIONS,
  SGLANG_REQUIRED,
  sglangLevel,
  withCurrentSglangKeys,
} from './import-sglang.js';
import { importError, type RawResult, type ResultTool, readResultObjects } from './import-source.js';
import { VLLM_DEFINITIONS, VLLM_REQUIRED, vllmLevel } from './import-vllm.js';
import { applyWorkloadFacts } from './import-workload.js';
import type { StatedTotals } from './layout.js';

export type ImportFrom = ResultTool | 'auto';

export interface ImportOptions {
  /** Which tool wrote the file; 'auto' (the default) decides from its keys or labels. */
  from?: ImportFrom;
  name?: string;
  /** When the run started if the file does not say (the CLI passes the file's modification time). */
  startedAt?: string;
}

const TOOL_NAME: Record<ResultTool, string> = {
  sglang: 'SGLang bench_serving',
  vllm: 'vLLM bench serve',
};

/** The tool that wrote every result, checked against --from. */
function chooseTool(results: RawResult[], file: string, from: ImportFrom): ResultTool {
  const where = (r: RawResult) => (r.printed ? `the table at line ${r.line}` : `line ${r.line}`);
  if (from !== 'auto') {
    const other = results.find((r) => r.tool !== null && r.tool !== from);
    if (other)
      throw importError(
        file,
        `${TOOL_NAME[from]} results`,
        `${where(other)} is a ${TOOL_NAME[other.tool!]} result (use --from ${other.tool})`,
      );
    return from;
  }
  const tools = new Set(results.map((r) => r.tool));
  if (tools.size === 1 && !tools.has(null)) return results[0].tool!;
  const unknown = results.find((r) => r.tool === null);
  throw importError(
    file,
    'SGLang bench_serving or vLLM bench serve results',
    unknown
      ? `${where(unknown)} has no key only one of them writes (pass --from sglang or --from vllm)`
      : 'it mixes results of both tools',
  );
}

/**
 * A result whose level the file does not state is left out with a warning naming it and why; a file
 * none of whose levels is known is refused.
 */
function levelKnown(f: ResultFields, level: unknown, warnings: string[]): boolean {
  if (typeof level !== 'string') return true;
  warnings.push(
    `${f.file}:${f.raw.line}: left out: the result does not say which level it measured (${level}).`,
  );
  return false;
}

function someLevel(levels: LevelSummary[], warnings: string[], file: string, tool: ResultTool): void {
  if (levels.length === 0)
    throw importError(
      file,
      `${TOOL_NAME[tool]} results with their load level`,
      warnings.filter((w) => w.includes('left out')).join(' ') || 'it holds none',
    );
}

function importSglangResults(results: RawResult[], file: string, opts: ImportOptions): ImportedRun {
  const warnings: string[] = [];
  const totals: StatedTotals[] = [];
  const levels: LevelSummary[] = [];
  const records: RequestRecord[] = [];
  const seen = new Map<string, number>();
  const origins = new Set<ItlOrigin>();
  const all = results.map((r) => new ResultFields(file, withCurrentSglangKeys(r)));
  all.forEach((f, i) => {
    f.require(SGLANG_REQUIRED, 'SGLang bench_serving results');
    const mapped = sglangLevel(f, i, records);
    if (!levelKnown(f, mapped.level, warnings)) return;
    warnings.push(...crossCheckResult(f, mapped.summary));
    const stated = statedTotals(f, i);
    if (stated) totals.push(stated);
    if (!f.has('completed'))
      warnings.push(
        `${file}:${f.raw.line}: this bench_serving release (before v0.2.12) does not say how many requests completed; recorded as unknown.`,
      );
    const key = JSON.stringify(mapped.summary.level);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      warnings.push(
        `${file}: line ${f.raw.line} measured the same level as line ${all[earlier].raw.line}; keeping the later one.`,
      );
      levels.splice(
        levels.findIndex((l) => l.levelIndex === earlier),
        1,
      );
    }
    seen.set(key, i);
    origins.add(mapped.itl);
    levels.push(mapped.summary);
  });
  someLevel(levels, warnings, file, 'sglang');
  const itlText = [...origins].map((x) => ITL_DEFINITIONS[x]).join('; or, on some lines, ');
  if (origins.size > 1)
    warnings.push(`${file} mixes per-token and per-chunk ITL across lines (see the manifest).`);
  const run = assembleImportedRun({
    tool: 'sglang-bench-serving',
    file,
    definitions: `SGLang bench_serving (backend ${all[0].text('backend')}): TTFT = send to first non-empty text chunk; ${itlText}; ${SGLANG_COMMON_DEFINITIONS}`,
    itl: origins.has('chunk') ? (origins.size === 1 ? 'chunk' : undefined) : 'token',
    name: opts.name ?? defaultImportName(file),
    levels,
    records,
    warnings,
    detailsHow: 'bench_serving with --output-details',
    backend: all[0].text('backend'),
    workload: {},
    startedAt: opts.startedAt ?? new Date(0).toISOString(),
    printed: results.every((r) => r.printed),
  });
  applyWorkloadFacts(run, all);
  keepStatedTotals(run, totals);
  return run;
}

/** The totals the tool stated for the levels kept (a level left out or replaced takes its totals with it). */
function keepStatedTotals(run: ImportedRun, totals: StatedTotals[]): void {
  const kept = new Set(run.summary.levels.map((l) => l.levelIndex));
  const mine = totals.filter((t) => kept.has(t.levelIndex));
  if (mine.length > 0) run.manifest.source.statedTotals = mine;
}

/** vLLM writes `date` as %Y%m%d-%H%M%S local time; read it as UTC (the zone is not recorded). */
function vllmDate(v: unknown): string | null {
  const m = typeof v === 'string' ? /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/.exec(v) : null;
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z` : null;
}

function importVllmResults(results: RawResult[], file: string, opts: ImportOptions): ImportedRun {
  const warnings: string[] = [];
  const totals: StatedTotals[] = [];
  const levels: LevelSummary[] = [];
  const records: RequestRecord[] = [];
  const all = results.map((r) => new ResultFields(file, r));
  all.forEach((f, i) => {
    f.require(VLLM_REQUIRED, 'vLLM bench serve results');
    const mapped = vllmLevel(f, i, records);
    if (!levelKnown(f, mapped.level, warnings)) return;
    warnings.push(...crossCheckResult(f, mapped.summary));
    const stated = statedTotals(f, i);
    if (stated) totals.push(stated);
    if (mapped.note) warnings.push(mapped.note);
    levels.push(mapped.summary);
  });
  someLevel(levels, warnings, file, 'vllm');
  const label = all[0].value('label');
  const run = assembleImportedRun({
    tool: 'vllm-bench-serve',
    file,
    definitions: VLLM_DEFINITIONS,
    name: opts.name ?? (typeof label === 'string' && label ? label : defaultImportName(file)),
    levels,
    records,
    warnings,
    detailsHow: 'vllm bench serve with --save-detailed',
    backend: all[0].text('backend'),
    workload: {},
    startedAt: vllmDate(all[0].value('date')) ?? opts.startedAt ?? new Date(0).toISOString(),
    printed: results.every((r) => r.printed),
  });
  applyWorkloadFacts(run, all);
  keepStatedTotals(run, totals);
  return run;
}

/** Imports a file's text: a result file or a pasted terminal log of either tool. */
export function importResultText(text: string, file: string, opts: ImportOptions = {}): ImportedRun {
  const results = readResultObjects(text, file);
  const tool = chooseTool(results, file, opts.from ?? 'auto');
  return tool === 'sglang'
    ? importSglangResults(results, file, opts)
    : importVllmResults(results, file, opts);
}

export const importSglang = (text: string, file: string, opts: Omit<ImportOptions, 'from'> = {}) =>
  importResultText(text, file, { ...opts, from: 'sglang' });

export const importVllm = (text: string, file: string, opts: Omit<ImportOptions, 'from'> = {}) =>
  importResultText(text, file, { ...opts, from: 'vllm' });
