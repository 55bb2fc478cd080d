// Fixture builders for report and results tests: request records with known timings, a plain
// level summary computed from them, and whole run directories on disk. Test use only.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { percentile } from '../metrics/percentile.js';
import type { Distribution, LevelKey, LevelSummary, RunSummary } from '../metrics/summary.js';
import { planSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { levelFile, type Manifest } from '../results/layout.js';
import { METRICS } from './metric-catalog.js';
import type { RunNoise } from './run-noise.js';

export interface RequestSpec {
  ttftMs: number;
  e2eMs: number;
  outputTokens: number;
  verifySteps?: number | null;
}

/** Closed-loop records: `concurrency` lanes, each sending its next request when the previous ends. */
export function buildRecords(
  levelIndex: number,
  concurrency: number,
  specs: RequestSpec[],
  firstId = 0,
): RequestRecord[] {
  const laneEnd = new Array<number>(concurrency).fill(0);
  return specs.map((s, i) => {
    const lane = i % concurrency;
    const sentMs = laneEnd[lane];
    const n = s.outputTokens;
    const chunkMs = Array.from(
      { length: n },
      (_, k) => sentMs + s.ttftMs + (n > 1 ? ((s.e2eMs - s.ttftMs) * k) / (n - 1) : 0),
    );
    laneEnd[lane] = sentMs + s.e2eMs;
    return {
      v: 1,
      id: firstId + i,
      levelIndex,
      warmup: false,
      scheduledMs: sentMs,
      sentMs,
      headersMs: sentMs + 1,
      chunkMs,
      chunkTokens: chunkMs.map(() => 1),
      chunkTokenSource: 'server-per-chunk',
      firstContentMs: chunkMs[0] ?? null,
      endMs: sentMs + s.e2eMs,
      inputTokensServer: 128,
      inputTokensClient: 128,
      outputTokensServer: n,
      outputTokensClient: n,
      requestedOutputTokens: n,
      specVerifySteps: s.verifySteps ?? null,
      finishReason: 'length',
      httpStatus: 200,
      error: null,
    };
  });
}

function dist(xs: number[]): Distribution | null {
  if (xs.length === 0) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  return {
    count: xs.length,
    mean,
    std,
    min: Math.min(...xs),
    max: Math.max(...xs),
    percentiles: { p50: percentile(xs, 50), p90: percentile(xs, 90), p99: percentile(xs, 99) },
  };
}

/** A straightforward LevelSummary of records (the fixture's own arithmetic, independent of src/metrics). */
export function summarizeForTest(
  levelIndex: number,
  level: LevelKey,
  records: RequestRecord[],
  extra: Partial<LevelSummary> = {},
): LevelSummary {
  const start = Math.min(...records.map((r) => r.sentMs));
  const end = Math.max(...records.map((r) => r.chunkMs[r.chunkMs.length - 1]));
  const windowS = (end - start) / 1000;
  const tokens = records.reduce((a, r) => a + (r.outputTokensServer ?? 0), 0);
  const ttft = records.map((r) => r.chunkMs[0] - r.sentMs);
  const e2e = records.map((r) => r.chunkMs[r.chunkMs.length - 1] - r.sentMs);
  const tpot = records.map((r, i) => (e2e[i] - ttft[i]) / ((r.outputTokensServer ?? 2) - 1));
  const steps = records.reduce((a, r) => a + (r.specVerifySteps ?? 0), 0);
  return {
    levelIndex,
    level,
    windowS,
    requests: { completed: records.length, failed: 0, warmup: 0, inFlightAtEnd: 0 },
    ttftMs: dist(ttft),
    ttftContentMs: dist(ttft),
    chunkItlMs: null,
    tokenItlMs: null,
    tpotMs: dist(tpot),
    e2eMs: dist(e2e),
    e2eInclQueueMs: dist(e2e),
    queueWaitMs: null,
    throughput: {
      requestsPerS: records.length / windowS,
      inputTokensPerS: (records.length * 128) / windowS,
      outputTokensPerS: tokens / windowS,
      totalTokensPerS: (tokens + records.length * 128) / windowS,
      peakOutputTokensPerS: tokens / windowS,
    },
    achievedConcurrency: e2e.reduce((a, b) => a + b, 0) / 1000 / windowS,
    goodput: null,
    errorsByCode: {},
    tokenReconciliation: {
      compared: records.length,
      outputMismatches: 0,
      inputMismatches: 0,
      chunkTokenSources: { 'server-per-chunk': records.length },
    },
    speculative:
      steps > 0 ? { acceptanceLength: tokens / steps, source: 'per-request', verifySteps: steps } : null,
    client: { eventLoopDelayP99Ms: 1, cpuPercentOfOneCore: 10, clientLimited: false },
    validity: { valid: true, reasons: [] },
    ...extra,
  };
}

/** Deterministic spread in [1 - w, 1 + w] (no randomness in fixtures, so answers are known). */
export const spread = (i: number, n: number, w: number): number =>
  1 - w + (2 * w * ((i * 7919) % n)) / Math.max(1, n - 1);

export interface FixtureLevel {
  concurrency: number;
  specs: RequestSpec[];
  summaryExtra?: Partial<LevelSummary>;
}

export interface FixtureRun {
  name: string;
  levels: FixtureLevel[];
  config?: Record<string, string | number | boolean>;
  varies?: string[];
  checkpoint?: Manifest['checkpoint'];
  source?: Manifest['source'];
  forced?: Manifest['forced'];
  /** Plan workload section (input_tokens, output_tokens, …) as a user would write it. */
  workload?: Record<string, unknown>;
}

export function buildManifest(run: FixtureRun): Manifest {
  const plan = planSchema.parse({
    name: run.name,
    varies: run.varies ?? [],
    load: { levels: run.levels.map((l) => l.concurrency) },
    ...(run.workload ? { workload: run.workload } : {}),
  });
  return {
    schema: 'benchgate.manifest/1',
    runId: `${run.name}-run`,
    name: run.name,
    plan,
    planPath: null,
    versions: { benchgate: '0.1.0', node: process.version, os: 'linux' },
    anchor: { monoMs: 0, wallIso: '2026-01-01T00:00:00.000Z', wallEpochMs: 1767225600000 },
    verifiedTarget: run.config
      ? {
          url: 'http://127.0.0.1:30000',
          engine: 'sglang',
          engineVersion: String(run.config.engine_version ?? '0.5.0'),
          model: String(run.config.model ?? 'story-moe'),
          config: Object.fromEntries(
            Object.entries(run.config).map(([k, v]) => [k, { value: v, source: 'GET /server_info' }]),
          ),
          raw: {},
          processStartTime: null,
          fingerprint: 'x',
        }
      : null,
    checkpoint: run.checkpoint ?? null,
    forced: run.forced ?? null,
    tokenizer: null,
    source: run.source ?? { tool: 'benchgate' },
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:10:00.000Z',
  };
}

/** Builds a run in memory: records per level and their summaries. */
export function buildRun(run: FixtureRun): {
  manifest: Manifest;
  summary: RunSummary;
  records: RequestRecord[];
} {
  const records: RequestRecord[] = [];
  const levels: LevelSummary[] = [];
  run.levels.forEach((l, i) => {
    const recs = buildRecords(i, l.concurrency, l.specs, records.length);
    records.push(...recs);
    levels.push(summarizeForTest(i, { kind: 'concurrency', value: l.concurrency }, recs, l.summaryExtra));
  });
  return {
    manifest: buildManifest(run),
    summary: { schema: 'benchgate.summary/1', runId: `${run.name}-run`, name: run.name, levels },
    records,
  };
}

/** Writes a complete run directory under `root` and returns its path. */
export async function writeRunDir(
  root: string,
  run: FixtureRun,
  opts: { withSummary?: boolean } = {},
): Promise<string> {
  const dir = join(root, run.name);
  await mkdir(dir, { recursive: true });
  const { manifest, summary, records } = buildRun(run);
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  await writeFile(join(dir, 'requests.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  for (const l of summary.levels) await writeFile(join(dir, levelFile(l.levelIndex)), JSON.stringify(l));
  if (opts.withSummary !== false) await writeFile(join(dir, 'summary.json'), JSON.stringify(summary));
  return dir;
}

/** Per-request specs: `n` requests of `tokens` tokens, e2e ≈ e2eMs × spread, TTFT ≈ ttftMs × spread. */
export function specs(
  n: number,
  opts: { e2eMs: number; ttftMs: number; tokens?: number; width?: number; acceptance?: number },
): RequestSpec[] {
  const tokens = opts.tokens ?? 64;
  return Array.from({ length: n }, (_, i) => {
    const f = spread(i, n, opts.width ?? 0.2);
    return {
      e2eMs: opts.e2eMs * f,
      ttftMs: opts.ttftMs * f,
      outputTokens: tokens,
      verifySteps: opts.acceptance ? Math.round(tokens / opts.acceptance) : null,
    };
  });
}

/**
 * A run-to-run spread as a caller would pass it after measuring it (0.1% on every metric over 20 runs):
 * for tests of the verdict grammar between one-trial fixtures, which without one draw no confident verdict.
 */
export const KNOWN_RUN_NOISE: RunNoise = {
  host: {
    source: 'fixture: 20 runs, 0.1% apart',
    runs: 20,
    logSd: Object.fromEntries(Object.keys(METRICS).map((m) => [m, 0.001])),
  },
};
