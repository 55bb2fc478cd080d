// Shared by the SGLang and vLLM importers: telling their files apart, reading another tool's aggregate
// keys into a LevelSummary, rebuilding request records from its per-request details, and writing the
// result as a run directory.

import { mkdir, open } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import { benchgateVersion } from '../core/version.js';
import type {
  Distribution,
  LevelKey,
  LevelSummary,
  RunSummary,
  SpeculativeSummary,
} from '../metrics/summary.js';
import { planSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { levelFile, type Manifest, REQUESTS_FILE, SUMMARY_FILE } from './layout.js';
import { writeJsonAtomic, writeManifest } from './run-store.js';

export type Obj = Record<string, unknown>;

export interface ImportedRun {
  manifest: Manifest;
  summary: RunSummary;
  records: RequestRecord[];
  warnings: string[];
}

/** Keys only vLLM's bench serve writes. */
export function looksLikeVllm(o: Obj): boolean {
  return 'endpoint_type' in o || ('model_id' in o && 'date' in o) || 'total_token_throughput' in o;
}

/** Keys only SGLang's bench_serving writes (vLLM says e2el, has no accept_length or retokenized totals). */
export function looksLikeSglang(o: Obj): boolean {
  return (
    !looksLikeVllm(o) &&
    ('median_e2e_latency_ms' in o || 'accept_length' in o || 'total_output_tokens_retokenized' in o)
  );
}

import { extent } from '../core/extent.js';

export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const numArray = (v: unknown): number[] | null =>
  Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : null;

/** A Distribution from `mean_<m>_ms`, `std_<m>_ms`, `median_<m>_ms` and `p<N>_<m>_ms` keys; null when absent. */
export function distFromKeys(
  o: Obj,
  metric: string,
  count: number,
  perRequest?: number[] | null,
): Distribution | null {
  const mean = num(o[`mean_${metric}_ms`]);
  const median = num(o[`median_${metric}_ms`]);
  if (mean === null && median === null) return null;
  const percentiles: Record<string, number> = {};
  if (median !== null) percentiles.p50 = median;
  const re = new RegExp(`^p(\\d+(?:\\.\\d+)?)_${metric}_ms$`);
  for (const [k, v] of Object.entries(o)) {
    const m = re.exec(k);
    const n = num(v);
    if (m && n !== null) percentiles[`p${m[1]}`] = n;
  }
  const range = extent(perRequest?.filter((x) => Number.isFinite(x)) ?? []);
  return {
    count,
    mean: mean ?? Number.NaN,
    std: num(o[`std_${metric}_ms`]) ?? Number.NaN,
    min: range.min,
    max: range.max,
    percentiles,
  };
}

export interface LevelFacts {
  levelIndex: number;
  level: LevelKey;
  durationS: number;
  completed: number;
  failed: number;
  ttftMs: Distribution | null;
  tpotMs: Distribution | null;
  chunkItlMs: Distribution | null;
  /** The tool's ITL when it was per token (SGLang's native backend); absent when it was per chunk. */
  tokenItlMs?: Distribution | null;
  e2eMs: Distribution | null;
  requestsPerS: number;
  inputTokensPerS: number;
  outputTokensPerS: number;
  peakOutputTokensPerS: number | null;
  achievedConcurrency: number | null;
  goodputRequestsPerS: number | null;
  speculative: SpeculativeSummary | null;
}

export function levelSummaryFrom(f: LevelFacts): LevelSummary {
  return {
    levelIndex: f.levelIndex,
    level: f.level,
    windowS: f.durationS,
    requests: { completed: f.completed, failed: f.failed, warmup: 0, inFlightAtEnd: 0 },
    ttftMs: f.ttftMs,
    ttftContentMs: null,
    chunkItlMs: f.chunkItlMs,
    tokenItlMs: f.tokenItlMs ?? null,
    tpotMs: f.tpotMs,
    e2eMs: f.e2eMs,
    e2eInclQueueMs: null,
    queueWaitMs: null,
    throughput: {
      requestsPerS: f.requestsPerS,
      inputTokensPerS: f.inputTokensPerS,
      outputTokensPerS: f.outputTokensPerS,
      totalTokensPerS: f.inputTokensPerS + f.outputTokensPerS,
      peakOutputTokensPerS: f.peakOutputTokensPerS ?? Number.NaN,
    },
    achievedConcurrency: f.achievedConcurrency ?? Number.NaN,
    goodput:
      f.goodputRequestsPerS === null
        ? null
        : {
            requestsPerS: f.goodputRequestsPerS,
            fraction: f.requestsPerS > 0 ? f.goodputRequestsPerS / f.requestsPerS : 0,
            slo: {},
          },
    errorsByCode: f.failed > 0 ? { imported: f.failed } : {},
    tokenReconciliation: { compared: 0, outputMismatches: 0, inputMismatches: 0, chunkTokenSources: {} },
    speculative: f.speculative,
    client: { eventLoopDelayP99Ms: null, cpuPercentOfOneCore: null, clientLimited: false },
    validity: { valid: true, reasons: [] },
  };
}

/** `tokens` spread evenly over `chunks` chunks, the remainder on the last. */
function spreadTokens(tokens: number, chunks: number): number[] {
  const per = Math.floor(tokens / chunks);
  return Array.from({ length: chunks }, (_, k) => (k === chunks - 1 ? tokens - per * (chunks - 1) : per));
}

/** The first chunk carries what the counted later chunks did not (at least one token). */
function countedChunkTokens(tokens: number, later: number[]): number[] {
  const rest = later.reduce((a, b) => a + b, 0);
  return [Math.max(1, tokens - rest), ...later];
}

/**
 * Request records rebuilt from per-request details (seconds): send at `startS` (0 when unknown), first token
 * after `ttftS`, then one chunk per ITL gap; the output token count is spread over the chunks. Appended to
 * `out` (ids continue from its length).
 */
export function appendRecordsFromDetails(
  out: RequestRecord[],
  levelIndex: number,
  d: {
    ttftsS: number[];
    itlsS: number[][];
    outputLens: number[];
    inputLens: number[] | null;
    errors: string[] | null;
    startsS: number[] | null;
    latenciesS: number[] | null;
    /** Tokens each ITL gap's chunk carried (the first chunk gets the rest); null: spread evenly. */
    gapTokens?: number[][] | null;
  },
): void {
  const firstId = out.length;
  const t0 = d.startsS?.length ? extent(d.startsS).min : 0;
  for (let i = 0; i < d.ttftsS.length; i++) {
    const err = d.errors?.[i] ?? '';
    const sentMs = d.startsS ? (d.startsS[i] - t0) * 1000 : 0;
    const gaps = d.itlsS[i] ?? [];
    const chunkMs = [sentMs + d.ttftsS[i] * 1000];
    for (const g of gaps) chunkMs.push(chunkMs[chunkMs.length - 1] + g * 1000);
    const tokens = d.outputLens[i] ?? 0;
    const counted = d.gapTokens?.[i];
    const chunkTokens = counted ? countedChunkTokens(tokens, counted) : spreadTokens(tokens, chunkMs.length);
    const ok = err === '' && tokens > 0 && d.ttftsS[i] > 0;
    const endMs = d.latenciesS ? sentMs + d.latenciesS[i] * 1000 : chunkMs[chunkMs.length - 1];
    out.push({
      v: 1,
      id: firstId + i,
      levelIndex,
      warmup: false,
      scheduledMs: sentMs,
      sentMs,
      headersMs: null,
      chunkMs: ok ? chunkMs : [],
      chunkTokens: ok ? chunkTokens : [],
      chunkTokenSource: counted ? 'server-per-chunk' : 'server-total-distributed',
      firstContentMs: ok ? chunkMs[0] : null,
      endMs,
      inputTokensServer: d.inputLens?.[i] ?? null,
      inputTokensClient: null,
      outputTokensServer: ok ? tokens : null,
      outputTokensClient: null,
      requestedOutputTokens: tokens,
      specVerifySteps: null,
      finishReason: ok ? 'imported' : null,
      httpStatus: null,
      error: ok
        ? null
        : { code: 'BG_E_HTTP_STATUS', message: `imported failure: ${err.slice(0, 200) || 'no tokens'}` },
    });
  }
}

export function importManifest(opts: {
  tool: 'sglang-bench-serving' | 'vllm-bench-serve';
  file: string;
  definitions: string;
  itl?: 'token' | 'chunk';
  name: string;
  levels: LevelKey[];
  workload: { inputTokens?: number | null; outputTokens?: number | null; dataset?: string | null };
  startedAt: string;
}): Manifest {
  const kind = opts.levels.every((l) => l.kind === 'rate') ? 'rate' : 'concurrency';
  const plan = planSchema.parse({
    name: opts.name,
    load: { kind, levels: opts.levels.map((l) => l.value) },
    workload: {
      dataset: opts.workload.dataset ?? 'random',
      ...(opts.workload.inputTokens ? { input_tokens: { fixed: opts.workload.inputTokens } } : {}),
      ...(opts.workload.outputTokens ? { output_tokens: { fixed: opts.workload.outputTokens } } : {}),
    },
  });
  return {
    schema: 'benchgate.manifest/1',
    runId: `import-${opts.name}`,
    name: opts.name,
    plan,
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
    },
    startedAt: opts.startedAt,
    finishedAt: null,
  };
}

/**
 * The ImportedRun of an importer's levels (sorted by index) and the records of the levels it kept, with
 * its manifest; warns when the file carried no per-request details (`detailsHow` says how to get them).
 */
export function assembleImportedRun(
  opts: Omit<Parameters<typeof importManifest>[0], 'levels'> & {
    levels: LevelSummary[];
    records: RequestRecord[];
    warnings: string[];
    detailsHow: string;
  },
): ImportedRun {
  const { levels, records, warnings, detailsHow, ...manifestOpts } = opts;
  if (records.length === 0)
    warnings.push(
      `${opts.file} has no per-request details (run ${detailsHow} for CIs); ratios will have no confidence intervals.`,
    );
  levels.sort((a, b) => a.levelIndex - b.levelIndex);
  const manifest = importManifest({ ...manifestOpts, levels: levels.map((l) => l.level) });
  return {
    manifest,
    summary: { schema: 'benchgate.summary/1', runId: manifest.runId, name: opts.name, levels },
    records: records.filter((r) => levels.some((l) => l.levelIndex === r.levelIndex)),
    warnings,
  };
}

export function defaultImportName(file: string): string {
  return basename(file, extname(file)).replace(/[^\w.-]+/g, '-') || 'imported';
}

export function importError(file: string, expected: string, found: string): BenchgateError {
  return new BenchgateError('BG_E_IMPORT', `Expected ${expected} in ${file}; ${found}.`);
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
    for (const l of run.summary.levels) writeJsonAtomic(join(dir, levelFile(l.levelIndex)), l);
    writeJsonAtomic(join(dir, SUMMARY_FILE), run.summary);
    await writeLines(join(dir, REQUESTS_FILE), run.records);
  } catch (e) {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `Could not write the imported run to ${dir}: ${(e as Error).message}.`,
    );
  }
  return dir;
}
