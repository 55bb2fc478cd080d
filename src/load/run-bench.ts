// runBench: the library entry point for one benchmark run. Resolves the target (or starts the embedded
// simulator), smoke-tests the request, then runs each level through the level runner, writing every
// record, level summary, summary and manifest to the run store as it goes.

import { performance } from 'node:perf_hooks';
import type { CheckpointReport } from '../checkpoint/finding.js';
import { gateFailed } from '../checkpoint/finding.js';
import { destroyAgents, preconnect, streamRequest, timeoutsFromPlan } from '../client/stream-request.js';
import { createTargetHttp } from '../client/target-http.js';
import { parseDurationS, takeAnchor } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import { benchgateVersion } from '../core/version.js';
import { detectEngine, getAdapter, scrapeSpecCounters } from '../engines/index.js';
import type { EngineName, GenerationParams, TargetHttp, VerifiedTarget } from '../engines/types.js';
import { summarizeLevel } from '../metrics/level.js';
import type { LevelKey, LevelSummary, RunSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { createRunStore, type RunStore } from '../results/run-store.js';
import type { SimulatorHandle, SimulatorOptions } from '../sim/api.js';
import { startSimulator } from '../sim/index.js';
import { type LevelShape, runLevel } from './level-runner.js';
import { type ProgressView, silentProgress } from './progress.js';
import { buildPrompts, type PromptItem } from './prompts.js';
import { startSelfCheck } from './self-check.js';
import { startSimulatorProcess } from './simulator-process.js';
import { chooseTokenizer } from './tokenizer.js';

export interface BeforeLoadResult {
  report: CheckpointReport;
  verifiedTarget: VerifiedTarget | null;
}

export interface RunBenchOptions {
  plan: Plan;
  planPath?: string | null;
  /** Interrupt (Ctrl-C): stop, keep what is complete, mark the run incomplete. */
  signal?: AbortSignal;
  progress?: ProgressView;
  /** Run past failed required checkpoint findings (recorded in the manifest). */
  force?: boolean;
  /** Checkpoint gate, called before any load is sent, with the URL actually targeted (the simulator's when started here). */
  beforeLoad?: (ctx: { url: string }) => Promise<BeforeLoadResult>;
  /** Drift check after each level; an invalid result marks the level invalid. */
  afterLevel?: (levelIndex: number) => Promise<{ valid: boolean; reasons: string[] }>;
  /** Options for the embedded simulator started when the plan has no target URL. */
  simulator?: SimulatorOptions;
  /** Run that simulator inside this process instead of a child process (its work then shows in the self-check). */
  simulatorInProcess?: boolean;
  /** Write into exactly this directory instead of <plan.output>/<run-id>/ (matrix use). */
  runDir?: string;
  /** Added to level indexes (matrix runs one level of a longer plan at a time). */
  levelIndexBase?: number;
  /** Environment used for target.api_key_env (default process.env). */
  env?: Record<string, string | undefined>;
}

export interface RunBenchResult {
  runId: string;
  runDir: string;
  summary: RunSummary;
  interrupted: boolean;
  /** True when the embedded simulator was the target. */
  simulated: boolean;
}

function levelKey(plan: Plan, value: number): LevelKey {
  if (plan.load.kind === 'concurrency') return { kind: 'concurrency', value };
  return { kind: 'rate', value, maxConcurrency: plan.load.max_concurrency ?? null };
}

export function levelLabel(k: LevelKey): string {
  if (k.kind === 'concurrency') return `concurrency ${k.value}`;
  return `rate ${k.value}/s${k.maxConcurrency ? ` (cap ${k.maxConcurrency})` : ''}`;
}

/** Starts the embedded simulator (no simulated model-load wait unless asked) and waits until it serves. */
async function startEmbeddedSimulator(opts: SimulatorOptions): Promise<SimulatorHandle> {
  const handle = await startSimulator({ host: '127.0.0.1', port: 0, loadTimeS: 0, ...opts });
  await handle.ready;
  return handle;
}

function authHeaders(
  plan: Plan,
  env: Record<string, string | undefined>,
): { headers: Record<string, string>; secrets: string[] } {
  const headers: Record<string, string> = { ...plan.target.headers };
  const secrets = Object.values(headers);
  const varName = plan.target.api_key_env;
  if (varName) {
    const key = env[varName];
    if (!key) {
      throw new BenchgateError(
        'BG_E_PLAN_INVALID',
        `target.api_key_env names the variable ${varName}, but it is not set or empty.`,
      );
    }
    headers.authorization = `Bearer ${key}`;
    secrets.push(key, headers.authorization);
  }
  return { headers, secrets };
}

interface ModelList {
  ids: string[];
}

async function listModels(http: TargetHttp): Promise<ModelList> {
  const doc = await http.request('/v1/models');
  if (doc.error) {
    throw new BenchgateError(
      'BG_E_CONNECT',
      `could not reach the target at ${http.baseUrl}: ${doc.error.message}.`,
    );
  }
  const data = (doc.json as { data?: { id?: unknown }[] } | undefined)?.data;
  const ids = Array.isArray(data)
    ? data.map((d) => d.id).filter((x): x is string => typeof x === 'string')
    : [];
  return { ids };
}

/** Prompts built (and tokenized) per level at most; longer levels cycle through them. */
export const MAX_PROMPT_POOL = 2048;

const SMOKE_FATAL = new Set([
  'BG_E_CONNECT',
  'BG_E_HTTP_STATUS',
  'BG_E_NOT_SSE',
  'BG_E_MALFORMED_CHUNK',
  'BG_E_STREAM_TRUNCATED',
  'BG_E_STREAM_ERROR_EVENT',
  'BG_E_SSE_EVENT_TOO_LARGE',
]);

export async function runBench(opts: RunBenchOptions): Promise<RunBenchResult> {
  const { plan } = opts;
  const progress = opts.progress ?? silentProgress;
  const env = opts.env ?? process.env;
  const { headers, secrets } = authHeaders(plan, env);
  let sim: SimulatorHandle | null = null;
  let url = plan.target.url ?? null;
  if (url === null) {
    sim = opts.simulatorInProcess
      ? await startEmbeddedSimulator(opts.simulator ?? {})
      : await startSimulatorProcess(opts.simulator ?? {});
    url = sim.url;
    progress.note(
      `benchgate: no target URL given; benchmarking the embedded simulator at ${url} (stopped at the end).`,
    );
  }
  try {
    return await runAgainst(url, sim !== null, headers, secrets, opts, progress);
  } finally {
    destroyAgents();
    if (sim) await sim.close();
  }
}

async function runAgainst(
  url: string,
  simulated: boolean,
  headers: Record<string, string>,
  secrets: string[],
  opts: RunBenchOptions,
  progress: ProgressView,
): Promise<RunBenchResult> {
  const { plan } = opts;
  const timeouts = timeoutsFromPlan(plan.target.timeouts);
  const http = createTargetHttp(url, { headers, timeoutMs: timeouts.connectMs });
  const models = await listModels(http);
  const engine: EngineName = plan.target.engine === 'auto' ? await detectEngine(http) : plan.target.engine;
  const adapter = getAdapter(engine);
  let model = plan.target.model ?? models.ids[0] ?? null;
  if (model === null) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `target.model is not set and GET ${url}/v1/models lists no model; name one with --model.`,
    );
  }
  if (plan.target.model && models.ids.length > 0 && !models.ids.includes(plan.target.model)) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `model "${plan.target.model}" is not served by ${url}; /v1/models lists: ${models.ids.slice(0, 10).join(', ')}.`,
    );
  }
  model = model as string;

  let checkpoint: BeforeLoadResult | null = null;
  let forced: { failedFindingIds: string[] } | null = null;
  if (opts.beforeLoad) {
    checkpoint = await opts.beforeLoad({ url });
    if (!checkpoint.report.ok) {
      const failed = gateFailed(checkpoint.report.findings).map((f) => f.id);
      if (!opts.force) {
        throw new BenchgateError(
          'BG_E_CHECK_FAILED',
          `required checkpoint checks failed, so no load was sent (use --force to run anyway).`,
          {
            details: failed.map((id) => `failed: ${id}`),
          },
        );
      }
      forced = { failedFindingIds: failed };
      progress.note(`benchgate: running despite failed required checks (--force): ${failed.join(', ')}`);
    }
  }

  const ignoreEos = plan.workload.ignore_eos ?? plan.workload.dataset === 'random';
  const params = (p: PromptItem): GenerationParams => ({
    api: plan.target.api,
    model: model as string,
    prompt: p.prompt,
    maxTokens: p.outputTokens,
    ignoreEos,
    temperature: plan.workload.temperature,
    stream: true,
  });

  // Smoke: one short request proves the endpoint streams before anything is written or measured.
  const smokeReq = adapter.requestFor(params({ prompt: 'Say hello.', inputTokens: 3, outputTokens: 2 }));
  const smoke = await streamRequest({
    baseUrl: url,
    request: smokeReq,
    headers,
    timeouts,
    originMs: performance.now(),
    id: -1,
    levelIndex: -1,
    warmup: true,
    requestedOutputTokens: 2,
  });
  if (smoke.error && SMOKE_FATAL.has(smoke.error.code)) {
    throw new BenchgateError(
      smoke.error.code,
      `the first request to ${url}${smokeReq.path} failed: ${smoke.error.message}`,
    );
  }

  const tokenizer = await chooseTokenizer(
    url,
    headers,
    model,
    plan.workload.tokenizer,
    adapter.tokenizeRequest,
  );
  if (tokenizer.method === 'approximate')
    progress.note(`benchgate: prompt lengths are approximate (${tokenizer.detail}).`);

  const anchor = takeAnchor();
  const name = plan.name ?? 'bench';
  const store: RunStore = createRunStore({
    outDir: plan.output,
    runDir: opts.runDir,
    secrets,
    manifest: {
      name,
      plan,
      planPath: opts.planPath ?? null,
      versions: {
        benchgate: benchgateVersion(),
        node: process.version,
        os: `${process.platform} ${process.arch}`,
      },
      anchor,
      verifiedTarget: checkpoint?.verifiedTarget ?? null,
      checkpoint: checkpoint?.report ?? null,
      forced,
      tokenizer: { method: tokenizer.method, detail: tokenizer.detail },
      source: { tool: 'benchgate' },
      startedAt: anchor.wallIso,
      finishedAt: null,
    },
  });

  const durationS = plan.load.duration === undefined ? null : parseDurationS(plan.load.duration);
  const requests = plan.load.requests ?? (durationS === null ? 100 : null);
  const levels: LevelSummary[] = [];
  let nextId = 0;
  let interrupted = false;
  let failure: string | null = null;
  let summary: RunSummary;
  try {
    for (let pi = 0; pi < plan.load.levels.length && !opts.signal?.aborted; pi++) {
      const li = pi + (opts.levelIndexBase ?? 0);
      const key = levelKey(plan, plan.load.levels[pi]);
      const shape: LevelShape = {
        levelIndex: li,
        level: key,
        requests,
        durationMs: durationS === null ? null : durationS * 1000,
        warmup: plan.load.warmup,
        arrival: plan.load.arrival,
        burstiness: plan.load.burstiness,
        seed: plan.workload.seed,
      };
      // Distinct prompts per level, built before the level; beyond MAX_PROMPT_POOL they are reused in turn.
      const poolSize = Math.min(plan.load.warmup + (requests ?? MAX_PROMPT_POOL), MAX_PROMPT_POOL);
      const prompts = await buildPrompts(
        {
          dataset: plan.workload.dataset,
          inputTokens: plan.workload.input_tokens,
          outputTokens: plan.workload.output_tokens,
          seed: plan.workload.seed,
        },
        poolSize,
        li,
        tokenizer,
      );
      const built = prompts.map((p) => adapter.requestFor(params(p)));
      const before = await scrapeSpecCounters(http, adapter);
      // Open the level's connections first, so no measured TTFT includes a TCP handshake.
      const inFlight = key.kind === 'concurrency' ? key.value : (key.maxConcurrency ?? Math.ceil(key.value));
      await preconnect(url, Math.min(inFlight, 1024), timeouts.connectMs);
      progress.levelStarted(pi, plan.load.levels.length, levelLabel(key), requests, shape.durationMs);
      const check = startSelfCheck();
      const result = await runLevel({
        shape,
        signal: opts.signal,
        send: (a) => {
          const k = a.index % built.length;
          return streamRequest({
            baseUrl: url,
            request: built[k],
            headers,
            timeouts,
            originMs: anchor.monoMs,
            id: nextId++,
            levelIndex: li,
            warmup: a.warmup,
            scheduledAtMs: a.scheduledAtMs,
            requestedOutputTokens: prompts[k].outputTokens,
            inputTokensClient: prompts[k].inputTokens,
            signal: a.signal,
          });
        },
        onRecord: (r: RequestRecord) => {
          store.appendRecord(r);
          progress.record(r);
        },
      });
      const self = check.stop();
      progress.levelDone();
      interrupted = result.interrupted;
      const after = await scrapeSpecCounters(http, adapter);
      const validity =
        opts.afterLevel && !interrupted
          ? await opts.afterLevel(li)
          : { valid: true, reasons: [] as string[] };
      if (interrupted) validity.reasons.push('interrupted before the level finished');
      const levelSummary = summarizeLevel({
        levelIndex: li,
        level: key,
        records: result.records,
        percentiles: plan.percentiles,
        slo: plan.slo,
        inFlightAtEnd: result.inFlightAtEnd,
        specCounters: { before, after, source: 'metrics-counters' },
        client: self,
        validity: interrupted ? { valid: false, reasons: validity.reasons } : validity,
      });
      levels.push(levelSummary);
      store.writeLevel(levelSummary);
      if (interrupted) break;
    }
  } catch (e) {
    failure = e instanceof Error ? e.message : String(e);
    throw e;
  } finally {
    interrupted = interrupted || opts.signal?.aborted === true;
    summary = { schema: 'benchgate.summary/1', runId: store.runId, name, levels };
    if (failure !== null) summary.incomplete = { reason: `stopped by an error: ${failure}` };
    else if (interrupted)
      summary.incomplete = { reason: 'interrupted; the levels and records complete so far are kept' };
    store.writeSummary(summary, plan.percentiles);
    store.updateManifest({ finishedAt: new Date().toISOString() });
    store.close();
  }
  return { runId: store.runId, runDir: store.dir, summary, interrupted, simulated };
}
