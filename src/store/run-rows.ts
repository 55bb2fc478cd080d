// One loaded run directory turned into the store's rows: the run (identity, engine, fingerprints, validity
// judged by the report's own rules), its flat configuration facts, one row per level with the headline
// figures, and one row per request with the latencies derived by the project's metric definitions.
// Pure: no I/O; index-runs.ts reads the directory and writes the rows.

import { createHash } from 'node:crypto';
import { canonicalJson } from '../checkpoint/verified-target.js';
import { requestLatencies } from '../metrics/request-latency.js';
import type { LevelSummary } from '../metrics/summary.js';
import { percentileOfKey, supportedPercentile, withholdUnsupported } from '../metrics/tail-samples.js';
import { inputTokens, outputTokens, type RequestRecord } from '../records/request-record.js';
import { isPlacementKey, isWorkloadKey, runFacts } from '../report/comparability.js';
import { levelId, levelLabel } from '../report/levels.js';
import type { LoadedRun } from '../results/layout.js';
import { validityOf } from '../results/run-validity.js';
import type { Params } from './db.js';
import { LEVEL_METRIC_COLUMNS } from './schema.js';

export interface RunRows {
  run: Params;
  config: Params[];
  levels: Params[];
  requests: Params[];
}

const sha = (v: unknown) => `sha256:${createHash('sha256').update(canonicalJson(v)).digest('hex')}`;

/**
 * Fingerprints for "the same configuration and workload": every fact the comparison engine compares
 * (runFacts), without where the server listens (port, host, log level) and without the server's start
 * time, so two starts of one configuration share a config fingerprint. Null without a verified target.
 */
export function fingerprints(facts: Map<string, string> | null, hasTarget: boolean) {
  if (!facts) return { config: null, workload: null };
  const config: Record<string, string> = {};
  const workload: Record<string, string> = {};
  for (const [k, v] of facts) {
    if (isWorkloadKey(k)) workload[k] = v;
    else if (!isPlacementKey(k)) config[k] = v;
  }
  return { config: hasTarget ? sha(config) : null, workload: sha(workload) };
}

/** GPUs a run's server uses: tp × dp × pp from the verified config, else the plan's gpus.count. */
export function gpuCount(run: LoadedRun): number | null {
  const cfg = run.manifest?.verifiedTarget?.config ?? {};
  const n = (k: string) => {
    const v = cfg[k]?.value;
    return typeof v === 'number' && v > 0 ? v : null;
  };
  const tp = n('tp_size');
  if (tp !== null) return tp * (n('dp_size') ?? 1) * (n('pp_size') ?? 1);
  const planned = (run.manifest?.plan as { gpus?: { count?: number } } | undefined)?.gpus?.count;
  return typeof planned === 'number' && planned > 0 ? planned : null;
}

/** A percentile the level's samples support (metrics/tail-samples.ts), else null: the store keeps no bare tail. */
const pct = (d: LevelSummary['ttftMs'], key: string): number | null =>
  supportedPercentile(d, percentileOfKey(key) ?? 100);

/** The headline figures of one level, in LEVEL_METRIC_COLUMNS order. */
export function levelMetrics(l: LevelSummary): (number | null)[] {
  const byColumn: Record<(typeof LEVEL_METRIC_COLUMNS)[number], number | null> = {
    requests_per_s: l.throughput.requestsPerS,
    output_tokens_per_s: l.throughput.outputTokensPerS,
    total_tokens_per_s: l.throughput.totalTokensPerS,
    ttft_p50_ms: pct(l.ttftMs, 'p50'),
    ttft_p99_ms: pct(l.ttftMs, 'p99'),
    tpot_p50_ms: pct(l.tpotMs, 'p50'),
    tpot_p99_ms: pct(l.tpotMs, 'p99'),
    token_itl_p50_ms: pct(l.tokenItlMs, 'p50'),
    e2e_p50_ms: pct(l.e2eMs, 'p50'),
    e2e_p99_ms: pct(l.e2eMs, 'p99'),
    goodput_requests_per_s: l.goodput?.requestsPerS ?? null,
    acceptance_length: l.speculative?.acceptanceLength ?? null,
    energy_per_token_j: l.energyPerTokenJ ?? null,
    achieved_concurrency: l.achievedConcurrency,
  };
  return LEVEL_METRIC_COLUMNS.map((c) => {
    const v = byColumn[c];
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  });
}

/** One request row: the record's derived latencies (metrics/request-latency.ts) and token counts. */
export function requestRow(dir: string, r: RequestRecord): Params {
  const lat = requestLatencies(r);
  return [
    dir,
    r.levelIndex,
    r.id,
    r.error?.code ?? null,
    r.httpStatus,
    r.finishReason,
    r.scheduledMs,
    r.sentMs,
    lat.ttftMs,
    lat.ttftContentMs,
    lat.e2eMs,
    lat.e2eInclQueueMs,
    lat.queueWaitMs,
    lat.tpotMs,
    inputTokens(r),
    outputTokens(r),
    r.chunkMs.length,
    r.specVerifySteps ?? null,
  ];
}

/**
 * Whether a run ended: failed (a required lossless check failed: the config is out of every comparison),
 * incomplete (interrupted, failed, or still running: serve tells which), finished.
 */
function runStatus(run: LoadedRun): string {
  if (run.lossless?.required && !run.lossless.valid) return 'failed';
  if (run.summary.incomplete) return 'incomplete';
  return run.manifest && run.manifest.finishedAt === null ? 'incomplete' : 'finished';
}

export function runRows(run: LoadedRun, id: string, matrixDir: string | null): RunRows {
  const m = run.manifest;
  const vt = m?.verifiedTarget ?? null;
  const facts = runFacts(run);
  const fp = fingerprints(facts, vt !== null);
  const validity = validityOf(run);
  const json = (v: unknown) => JSON.stringify(v);
  const runRow: Params = [
    ...[run.dir, id, m?.runId ?? run.summary.runId, run.name, matrixDir],
    ...[m?.source?.tool ?? 'benchgate', vt?.engine ?? m?.source?.engine ?? null],
    ...[vt?.engineVersion ?? null, vt?.model ?? null],
    ...[vt?.fingerprint ?? null, fp.config, fp.workload],
    ...[m?.plan?.load?.kind ?? null, run.summary.levels.length, gpuCount(run)],
    ...[validity.status, json(validity.reasons), runStatus(run)],
    ...[m?.startedAt ?? null, m?.finishedAt ?? null, m ? String(m.plan?.host ?? 'local') : null],
    ...[m?.versions?.benchgate ?? null, m?.forced != null, json(run.warnings), new Date().toISOString()],
  ];
  const config = [...(facts ?? new Map<string, string>())].map(([k, v]): Params => [run.dir, k, v]);
  const levels = run.summary.levels.map((l): Params => {
    const v = validity.levels[levelId(l.level)];
    return [
      ...[run.dir, l.levelIndex, l.level.kind, l.level.value, l.level.maxConcurrency ?? null],
      ...[levelLabel(l.level), l.windowS, l.requests.completed, l.requests.failed],
      ...levelMetrics(l),
      ...[
        l.client?.clientLimited === true,
        v?.status ?? null,
        json(v?.reasons ?? []),
        json(withholdUnsupported(l)),
      ],
    ];
  });
  return { run: runRow, config, levels, requests: run.records.map((r) => requestRow(run.dir, r)) };
}
