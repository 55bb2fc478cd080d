// A session of one target: everything a run prepares once (auth headers, model listing, engine
// detection, the checkpoint gate, the smoke request, tokenizer choice, ONE clock anchor), then the
// load levels swept one at a time into a run store, each followed by the drift check.
// `bench`, the single-server `run` and every matrix config go through it, so a matrix level does
// not repeat detection or the smoke request and all records of a session share one anchor.

import { gateFailed } from '../checkpoint/finding.js';
import type { CheckpointOutcome } from '../checkpoint/gate.js';
import {
  destroyAgents,
  preconnect,
  type StreamTimeouts,
  streamRequest,
  timeoutsFromPlan,
} from '../client/stream-request.js';
import { createTargetHttp } from '../client/target-http.js';
import { type ClockAnchor, monoNowMs, parseDurationS, takeAnchor } from '../core/clock.js';
import { BenchgateError, type ErrorCode } from '../core/errors.js';
import { benchgateVersion } from '../core/version.js';
import { detectEngine, getAdapter, scrapeSpecCounters } from '../engines/index.js';
import type { EngineAdapter, EngineName, GenerationParams, HttpDoc, TargetHttp } from '../engines/types.js';
import { levelKeyOf, levelWords } from '../load/level-label.js';
import { type LevelShape, runLevel } from '../load/level-runner.js';
import { type ProgressView, silentProgress } from '../load/progress.js';
import { buildPrompts, type PromptItem } from '../load/prompts.js';
import { startSelfCheck } from '../load/self-check.js';
import { chooseTokenizer, type PromptTokenizer } from '../load/tokenizer.js';
import { summarizeLevel } from '../metrics/level.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { createRunStore, type RunStore } from '../results/run-store.js';
import { capacityCheck } from './capacity-check.js';

/** What the checkpoint gate returns: its report and the verified target (null when none was built). */
export type BeforeLoadResult = CheckpointOutcome;

export interface LevelValidity {
  valid: boolean;
  reasons: string[];
}

export interface OpenSessionOptions {
  plan: Plan;
  /** The URL actually targeted (the plan's, or the embedded simulator's). */
  url: string;
  /** Auth and plan headers sent with every request. */
  headers: Record<string, string>;
  /** Secret values in use, scrubbed from everything the run store writes. */
  secrets: string[];
  planPath?: string | null;
  progress?: ProgressView;
  /** Run past failed required checkpoint findings (recorded in the manifest). */
  force?: boolean;
  /** Checkpoint gate, called once before any load is sent. */
  beforeLoad?: (ctx: { url: string }) => Promise<BeforeLoadResult>;
}

export interface LevelOutcome {
  summary: LevelSummary;
  interrupted: boolean;
}

export interface RunLevelOptions {
  /** Where the level's records and summary go (from `session.openStore`). */
  store: RunStore;
  signal?: AbortSignal;
  /** Drift check after the level; an invalid result marks the level invalid. */
  afterLevel?: (levelIndex: number) => Promise<LevelValidity>;
}

export interface Session {
  readonly plan: Plan;
  readonly url: string;
  readonly engine: EngineName;
  readonly model: string;
  /** The one wall-clock anchor of the session: every record time is relative to it. */
  readonly anchor: ClockAnchor;
  readonly checkpoint: BeforeLoadResult | null;
  readonly forced: { failedFindingIds: string[] } | null;
  readonly tokenizer: PromptTokenizer;
  /** A run store whose manifest carries this session (anchor, verified target, tokenizer). */
  openStore(where: { outDir?: string; runDir?: string; name?: string }): RunStore;
  /** Sweeps the plan's level `levelIndex` (index into plan.load.levels) into `store`. */
  runLevel(levelIndex: number, o: RunLevelOptions): Promise<LevelOutcome>;
  /** Closes the pooled connections to the target (the run store is closed by its owner). */
  close(): void;
}

/** Prompts built (and tokenized) per level at most; longer levels cycle through them. */
export const MAX_PROMPT_POOL = 2048;

const SMOKE_FATAL = new Set<ErrorCode>([
  'BG_E_CONNECT',
  'BG_E_HTTP_STATUS',
  'BG_E_NOT_SSE',
  'BG_E_MALFORMED_CHUNK',
  'BG_E_STREAM_TRUNCATED',
  'BG_E_STREAM_ERROR_EVENT',
  'BG_E_SSE_EVENT_TOO_LARGE',
]);

/** Plan headers plus `Authorization: Bearer <target.api_key_env>`; the values are secrets. */
export function authHeaders(
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

export function streamTimeouts(plan: Plan): StreamTimeouts {
  return timeoutsFromPlan(plan.target.timeouts);
}

/** The target's HTTP with GET /v1/models fetched once: listing and engine detection share the answer. */
function listingOnce(http: TargetHttp): TargetHttp {
  let listing: Promise<HttpDoc> | null = null;
  return {
    baseUrl: http.baseUrl,
    request: (path, o) => {
      if (path !== '/v1/models' || (o?.method ?? 'GET') !== 'GET') return http.request(path, o);
      listing ??= http.request(path, o);
      return listing;
    },
  };
}

async function listModels(http: TargetHttp): Promise<string[]> {
  const doc = await http.request('/v1/models');
  if (doc.error) {
    throw new BenchgateError(
      'BG_E_CONNECT',
      `could not reach the target at ${http.baseUrl}: ${doc.error.message}.`,
    );
  }
  const data = (doc.json as { data?: { id?: unknown }[] } | undefined)?.data;
  return Array.isArray(data) ? data.map((d) => d.id).filter((x): x is string => typeof x === 'string') : [];
}

function chooseModel(plan: Plan, url: string, ids: string[]): string {
  const model = plan.target.model ?? ids[0] ?? null;
  if (model === null) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `target.model is not set and GET ${url}/v1/models lists no model; name one with --model.`,
    );
  }
  if (plan.target.model && ids.length > 0 && !ids.includes(plan.target.model)) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `model "${plan.target.model}" is not served by ${url}; /v1/models lists: ${ids.slice(0, 10).join(', ')}.`,
    );
  }
  return model;
}

/** Runs the checkpoint gate; throws BG_E_CHECK_FAILED on failed required checks unless forced. */
async function passGate(
  opts: OpenSessionOptions,
  progress: ProgressView,
): Promise<{ checkpoint: BeforeLoadResult | null; forced: { failedFindingIds: string[] } | null }> {
  if (!opts.beforeLoad) return { checkpoint: null, forced: null };
  const checkpoint = await opts.beforeLoad({ url: opts.url });
  if (checkpoint.report.ok) return { checkpoint, forced: null };
  const failed = gateFailed(checkpoint.report.findings).map((f) => f.id);
  if (!opts.force) {
    throw new BenchgateError(
      'BG_E_CHECK_FAILED',
      `required checkpoint checks failed, so no load was sent (use --force to run anyway).`,
      { details: failed.map((id) => `failed: ${id}`) },
    );
  }
  progress.note(`benchgate: running despite failed required checks (--force): ${failed.join(', ')}`);
  return { checkpoint, forced: { failedFindingIds: failed } };
}

/** Prepares a session: list models, detect the engine, gate, smoke, tokenizer, anchor. No record is written. */
export async function openSession(opts: OpenSessionOptions): Promise<Session> {
  const { plan, url, headers } = opts;
  const progress = opts.progress ?? silentProgress;
  const timeouts = streamTimeouts(plan);
  const http = listingOnce(createTargetHttp(url, { headers, timeoutMs: timeouts.connectMs }));
  const ids = await listModels(http);
  const engine: EngineName = plan.target.engine === 'auto' ? await detectEngine(http) : plan.target.engine;
  const adapter = getAdapter(engine);
  const model = chooseModel(plan, url, ids);
  const { checkpoint, forced } = await passGate(opts, progress);

  const ignoreEos = plan.workload.ignore_eos ?? plan.workload.dataset === 'random';
  const params = (p: PromptItem): GenerationParams => ({
    api: plan.target.api,
    model,
    prompt: p.prompt,
    maxTokens: p.outputTokens,
    ignoreEos,
    temperature: plan.workload.temperature,
    stream: true,
  });
  await smoke(
    url,
    adapter,
    params({ prompt: 'Say hello.', inputTokens: 3, outputTokens: 2 }),
    headers,
    timeouts,
  );

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
  const sweep = levelSweeper({
    plan,
    url,
    headers,
    timeouts,
    http,
    adapter,
    params,
    tokenizer,
    anchor,
    progress,
  });

  return {
    plan,
    url,
    engine,
    model,
    anchor,
    checkpoint,
    forced,
    tokenizer,
    openStore: (where) =>
      createRunStore({
        outDir: where.outDir ?? plan.output,
        runDir: where.runDir,
        secrets: opts.secrets,
        manifest: {
          name: where.name ?? plan.name ?? 'bench',
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
          ...capacityCheck(plan),
        },
      }),
    runLevel: sweep,
    close: destroyAgents,
  };
}

/** One short request proves the endpoint streams before anything is written or measured. */
async function smoke(
  url: string,
  adapter: EngineAdapter,
  params: GenerationParams,
  headers: Record<string, string>,
  timeouts: StreamTimeouts,
): Promise<void> {
  const req = adapter.requestFor(params);
  const r = await streamRequest({
    baseUrl: url,
    request: req,
    headers,
    timeouts,
    originMs: monoNowMs(),
    id: -1,
    levelIndex: -1,
    warmup: true,
    requestedOutputTokens: params.maxTokens,
  });
  if (r.error && SMOKE_FATAL.has(r.error.code as ErrorCode)) {
    throw new BenchgateError(
      r.error.code as ErrorCode,
      `the first request to ${url}${req.path} failed: ${r.error.message}`,
    );
  }
}

interface SweepContext {
  plan: Plan;
  url: string;
  headers: Record<string, string>;
  timeouts: StreamTimeouts;
  http: TargetHttp;
  adapter: EngineAdapter;
  params: (p: PromptItem) => GenerationParams;
  tokenizer: PromptTokenizer;
  anchor: ClockAnchor;
  progress: ProgressView;
}

/** The per-level sweep of a session; record ids continue across levels. */
function levelSweeper(c: SweepContext): Session['runLevel'] {
  const { plan } = c;
  const durationS = plan.load.duration === undefined ? null : parseDurationS(plan.load.duration);
  const requests = plan.load.requests ?? (durationS === null ? 100 : null);
  let nextId = 0;
  return async (li, o) => {
    const value = plan.load.levels[li];
    if (value === undefined) {
      throw new BenchgateError(
        'BG_E_INTERNAL',
        `level index ${li} is outside the plan's ${plan.load.levels.length} levels.`,
      );
    }
    const key = levelKeyOf(plan.load, value);
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
      c.tokenizer,
    );
    const built = prompts.map((p) => c.adapter.requestFor(c.params(p)));
    const before = await scrapeSpecCounters(c.http, c.adapter);
    // Open the level's connections first, so no measured TTFT includes a TCP handshake.
    const inFlight = key.kind === 'concurrency' ? key.value : (key.maxConcurrency ?? Math.ceil(key.value));
    await preconnect(c.url, Math.min(inFlight, 1024), c.timeouts.connectMs);
    c.progress.levelStarted(li, plan.load.levels.length, levelWords(key), requests, shape.durationMs);
    const check = startSelfCheck();
    const result = await runLevel({
      shape,
      signal: o.signal,
      send: (a) => {
        const k = a.index % built.length;
        return streamRequest({
          baseUrl: c.url,
          request: built[k],
          headers: c.headers,
          timeouts: c.timeouts,
          originMs: c.anchor.monoMs,
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
        o.store.appendRecord(r);
        c.progress.record(r);
      },
    });
    const self = check.stop();
    c.progress.levelDone();
    const interrupted = result.interrupted;
    const after = await scrapeSpecCounters(c.http, c.adapter);
    const validity: LevelValidity =
      o.afterLevel && !interrupted ? await o.afterLevel(li) : { valid: true, reasons: [] };
    if (interrupted) validity.reasons.push('interrupted before the level finished');
    const summary = summarizeLevel({
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
    o.store.writeLevel(summary);
    return { summary, interrupted };
  };
}
