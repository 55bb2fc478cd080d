// A session of one target: everything a run prepares once (auth headers, model listing, engine
// detection, the checkpoint gate, the smoke request, tokenizer choice, ONE clock anchor), then the
// load levels swept one at a time into a run store, each followed by the drift check.
// `bench`, the single-server `run` and every matrix config go through it, so a matrix level does
// not repeat detection or the smoke request and all records of a session share one anchor.

import { join } from 'node:path';
import { gateFailed } from '../checkpoint/finding.js';
import type { CheckpointOutcome } from '../checkpoint/gate.js';
import {
  destroyAgents,
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
import type { ErrorStop } from '../load/failure-policy.js';
import { levelKeyOf, levelWords } from '../load/level-label.js';
import type { LevelShape } from '../load/level-runner.js';
import { buildLevelWorkload } from '../load/level-workload.js';
import { PrefixHitCounter, type PrefixHitRates, prefixHitNote } from '../load/prefix-hits.js';
import { type ProgressView, silentProgress } from '../load/progress.js';
import type { PromptItem } from '../load/prompts.js';
import type { Shard } from '../load/shard.js';
import { chooseTokenizer, type PromptTokenizer } from '../load/tokenizer.js';
import { TurnAccumulator } from '../metrics/multi-turn.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import type { LevelKey } from '../records/level-key.js';
import type { RequestRecord } from '../records/request-record.js';
import { REQUESTS_FILE } from '../results/layout.js';
import { summarizeStoredLevel } from '../results/level-from-file.js';
import { createRunStore, type RunStore, writeJsonAtomic } from '../results/run-store.js';
import { capacityCheck } from './capacity-check.js';
import { sendLevel } from './level-send.js';
import { levelTelemetry } from './level-telemetry.js';
import { waitForServer } from './server-wait.js';

/** What the checkpoint gate returns: its report and the verified target (null when none was built). */
export type BeforeLoadResult = CheckpointOutcome;

export interface LevelValidity {
  valid: boolean;
  reasons: string[];
  /** Later levels must not run (the server no longer passes the checkpoint), and why. */
  endRun?: string;
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
  /** When preparation fails after the checkpoint passed, a run directory with both is written here. */
  failureOutDir?: string;
  /** Checkpoint gate, called once before any load is sent. */
  beforeLoad?: (ctx: { url: string }) => Promise<BeforeLoadResult>;
  /** Send only this shard's share of every level (bench with JOB_COMPLETION_INDEX). */
  shard?: Shard | null;
}

/** A level that stopped on its error rate (BG_E_LEVEL_ERROR_RATE). */
export interface LevelStop {
  code: ErrorCode;
  message: string;
  /**
   * The run must not go on: no request of the level succeeded (the server is taken as dead), or the
   * server failed the checkpoint again after a drift (see docs/reliability.md).
   */
  endsRun: boolean;
}

export interface LevelOutcome {
  summary: LevelSummary;
  interrupted: boolean;
  /** Shared-prefix workloads: configured and observed prefix-cache hit rates. */
  prefixCache: PrefixHitRates | null;
  stop: LevelStop | null;
}

export interface RunLevelOptions {
  /** Where the level's records and summary go (from `session.openStore`). */
  store: RunStore;
  signal?: AbortSignal;
  /** Drift check after the level; an invalid result marks the level invalid. */
  afterLevel?: (levelIndex: number) => Promise<LevelValidity>;
  /**
   * A level not in plan.load.levels (an SLO-search probe): its key, the SLOs to judge it by, and its
   * own size (measured requests and a time bound) in place of load.requests and load.duration.
   */
  probe?: { level: LevelKey; slo: Plan['slo']; requests?: number; durationMs?: number };
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
  if (doc.error || doc.status === null) {
    throw new BenchgateError(
      'BG_E_CONNECT',
      `could not reach the target at ${http.baseUrl}: ${doc.error?.message ?? 'no answer'}.`,
    );
  }
  if (doc.status !== 200) {
    throw new BenchgateError(
      'BG_E_HTTP_STATUS',
      `GET ${http.baseUrl}/v1/models answered HTTP ${doc.status}; the model list is needed to choose a model (or name one with --model).`,
    );
  }
  const data = (doc.json as { data?: { id?: unknown }[] } | undefined)?.data;
  return Array.isArray(data) ? data.map((d) => d.id).filter((x): x is string => typeof x === 'string') : [];
}

/** plan.target.model, else the checkpoint's verified model, else the first of /v1/models. */
function chooseModel(plan: Plan, url: string, ids: string[], verifiedModel: string | null): string {
  const model = plan.target.model ?? verifiedModel ?? ids[0] ?? null;
  if (model === null) {
    throw new BenchgateError(
      'BG_E_NO_MODEL',
      `GET ${url}/v1/models answered 200 with an empty model list and target.model is not set; name one with --model.`,
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
  const rawHttp = createTargetHttp(url, { headers, timeoutMs: timeouts.connectMs });
  const http = listingOnce(rawHttp);
  // the gate first: its health check honours expect.wait, so a loading server is waited for
  const { checkpoint, forced } = await passGate(opts, progress);
  const ids = await listModels(http);
  const engine: EngineName = plan.target.engine === 'auto' ? await detectEngine(http) : plan.target.engine;
  const adapter = getAdapter(engine);
  const model = chooseModel(plan, url, ids, checkpoint?.verifiedTarget?.model ?? null);

  const makeStore = (
    where: { outDir?: string; runDir?: string; name?: string },
    anchor: ClockAnchor,
    tok: PromptTokenizer | null,
    notes: { capacityNotes?: string[] } = {},
  ): RunStore =>
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
        tokenizer: tok ? { method: tok.method, detail: tok.detail } : null,
        source: { tool: 'benchgate' },
        startedAt: anchor.wallIso,
        finishedAt: null,
        ...notes,
      },
    });

  const w = plan.workload;
  // recorded reply lengths are only honoured when the server does not stop at EOS first
  const ignoreEos =
    w.ignore_eos ?? (w.dataset === 'random' || (w.kind === 'sharegpt' && w.output_lengths === 'recorded'));
  const params = (p: PromptItem): GenerationParams => ({
    api: plan.target.api,
    model,
    prompt: p.prompt,
    maxTokens: p.outputTokens,
    ignoreEos,
    temperature: plan.workload.temperature,
    stream: true,
  });
  let tokenizer: PromptTokenizer;
  try {
    await smoke(
      url,
      adapter,
      params({ prompt: 'Say hello.', inputTokens: 3, outputTokens: 2 }),
      headers,
      timeouts,
      progress,
    );
    tokenizer = await chooseTokenizer(url, headers, model, plan.workload.tokenizer, adapter.tokenizeRequest);
  } catch (e) {
    // the checkpoint passed: keep its evidence in a run directory with the failure
    if (checkpoint && opts.failureOutDir && e instanceof BenchgateError) {
      const store = makeStore({ outDir: opts.failureOutDir }, takeAnchor(), null);
      store.writeSummary(
        {
          schema: 'benchgate.summary/1',
          runId: store.runId,
          name: plan.name ?? 'bench',
          levels: [],
          incomplete: {
            reason: `stopped before any load by an error after the checkpoint: ${e.message} [${e.code}]`,
          },
        },
        plan.percentiles,
      );
      store.updateManifest({ finishedAt: new Date().toISOString() });
      store.close();
      throw new BenchgateError(e.code, e.message, {
        details: [...e.details, `the checkpoint and this failure are written to ${store.dir}`],
        cause: e,
      });
    }
    throw e;
  }
  if (tokenizer.method === 'approximate')
    progress.note(`benchgate: prompt lengths are approximate (${tokenizer.detail}).`);
  const anchor = takeAnchor();
  const sweep = levelSweeper({
    plan,
    url,
    headers,
    timeouts,
    http,
    rawHttp,
    adapter,
    params,
    tokenizer,
    anchor,
    progress,
    shard: opts.shard ?? null,
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
    // levels beyond the client's calibrated capacity are noted before any load (benchgate calibrate)
    openStore: (where) => makeStore(where, anchor, tokenizer, capacityCheck(plan)),
    runLevel: sweep,
    close: destroyAgents,
  };
}

/** One short request proves the endpoint streams before anything is written or measured. */
/** Smoke attempts; an intermittent error (a 503 right after the checkpoint) is sent again after a back-off. */
export const SMOKE_ATTEMPTS = 4;
const SMOKE_BACKOFF_MS = [250, 500, 1000];

async function smoke(
  url: string,
  adapter: EngineAdapter,
  params: GenerationParams,
  headers: Record<string, string>,
  timeouts: StreamTimeouts,
  progress: ProgressView,
): Promise<void> {
  const req = adapter.requestFor(params);
  for (let attempt = 1; ; attempt++) {
    const failure = await smokeOnce(url, req, params, headers, timeouts);
    if (failure === null) return;
    if (attempt >= SMOKE_ATTEMPTS) {
      throw new BenchgateError(
        failure.code,
        `the first request to ${url}${req.path} failed ${SMOKE_ATTEMPTS} times in a row; the last: ${failure.message}`,
      );
    }
    const waitMs = SMOKE_BACKOFF_MS[Math.min(attempt - 1, SMOKE_BACKOFF_MS.length - 1)];
    progress.note(
      `benchgate: the first request failed (${failure.message.slice(0, 120)}); trying again in ${waitMs} ms`,
    );
    await new Promise((r) => setTimeout(r, waitMs));
  }
}

async function smokeOnce(
  url: string,
  req: ReturnType<EngineAdapter['requestFor']>,
  params: GenerationParams,
  headers: Record<string, string>,
  timeouts: StreamTimeouts,
): Promise<{ code: ErrorCode; message: string } | null> {
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
    return { code: r.error.code as ErrorCode, message: r.error.message };
  }
  return null;
}

interface SweepContext {
  plan: Plan;
  url: string;
  headers: Record<string, string>;
  timeouts: StreamTimeouts;
  http: TargetHttp;
  /** Uncached: polled when the server stops answering mid-run. */
  rawHttp: TargetHttp;
  adapter: EngineAdapter;
  params: (p: PromptItem) => GenerationParams;
  tokenizer: PromptTokenizer;
  anchor: ClockAnchor;
  progress: ProgressView;
  shard: Shard | null;
}

/** The per-level sweep of a session; record ids continue across levels. */
function levelSweeper(c: SweepContext): Session['runLevel'] {
  const { plan } = c;
  const durationS = plan.load.duration === undefined ? null : parseDurationS(plan.load.duration);
  const planRequests = plan.load.requests ?? (durationS === null ? 100 : null);
  let nextId = 0;
  /** The previous level had failed requests or was invalid (a restart, say): check the server first. */
  let troubled = false;
  const telemetryOf = levelTelemetry(c);
  return async (li, o) => {
    const value = o.probe ? o.probe.level.value : plan.load.levels[li];
    if (value === undefined) {
      throw new BenchgateError(
        'BG_E_INTERNAL',
        `level index ${li} is outside the plan's ${plan.load.levels.length} levels.`,
      );
    }
    const level = o.probe?.level ?? levelKeyOf(plan.load, value);
    // A server that restarted (or died) during the previous level is waited for, up to expect.wait.
    const waitServer = () =>
      waitForServer({
        http: c.rawHttp,
        plan,
        progress: c.progress,
        when: `before level ${levelWords(level)}`,
        signal: o.signal,
      });
    if (troubled) await waitServer();
    const requests = o.probe?.requests ?? planRequests;
    // Distinct prompts per level, built before the level; beyond MAX_PROMPT_POOL they are reused in turn.
    const poolSize = Math.min(plan.load.warmup + (requests ?? MAX_PROMPT_POOL), MAX_PROMPT_POOL);
    const build = () =>
      buildLevelWorkload({ plan, value, level, levelIndex: li, requests, poolSize, tokenizer: c.tokenizer });
    let work: Awaited<ReturnType<typeof build>>;
    try {
      work = await build();
    } catch (e) {
      // the server's tokenizer stopped answering (a restart while the prompts were counted): wait, once more
      if (
        !(e instanceof BenchgateError && e.code === 'BG_E_TOKENIZER' && /stopped answering/.test(e.message))
      )
        throw e;
      await waitServer();
      work = await build();
    }
    const { prompts, level: key } = work;
    const shape: LevelShape = {
      levelIndex: li,
      level: key,
      requests: work.requests,
      durationMs: o.probe?.durationMs ?? (durationS === null ? null : durationS * 1000),
      warmup: work.unmeasured,
      arrival: plan.load.arrival,
      burstiness: plan.load.burstiness,
      seed: plan.workload.seed,
      shard: c.shard,
      scheduleMs: work.scheduleMs,
      backoff:
        plan.load.backoff.initial_ms > 0
          ? { initialMs: plan.load.backoff.initial_ms, maxMs: plan.load.backoff.max_ms }
          : null,
      errorStop: { rate: plan.load.error_stop.rate, minRequests: plan.load.error_stop.min_requests },
    };
    const built = prompts.map((p) => c.adapter.requestFor(c.params(p)));
    const before = await scrapeSpecCounters(c.http, c.adapter);
    const inFlight = key.kind === 'concurrency' ? key.value : (key.maxConcurrency ?? Math.ceil(key.value));
    c.progress.levelStarted(li, plan.load.levels.length, levelWords(key), work.requests, shape.durationMs);
    const telemetry = await telemetryOf.start(li);
    const hits = new PrefixHitCounter();
    const conv = work.conversations;
    const turns = conv ? new TurnAccumulator() : null;
    let sawError = false;
    // in this thread, or over load.workers worker threads (level-send.ts)
    const { result, self } = await sendLevel({
      shape,
      workers: plan.load.workers,
      url: c.url,
      headers: c.headers,
      timeouts: c.timeouts,
      anchor: c.anchor,
      built,
      prompts,
      inFlight,
      nextId: () => nextId++,
      signal: o.signal,
      onMeasuredStart: () => telemetry.measuredStarted(),
      conversations: conv
        ? {
            driver: conv,
            requestFor: (t) => c.adapter.requestFor({ ...c.params(t.message), messages: t.messages }),
          }
        : null,
      onRecord: (r: RequestRecord) => {
        o.store.appendRecord(r);
        c.progress.record(r);
        hits.add(r);
        turns?.add(r);
        if (r.error !== null) sawError = true;
      },
    });
    const server = await telemetry.stop(o.store.dir);
    c.progress.levelDone();
    const interrupted = result.interrupted;
    const after = await scrapeSpecCounters(c.http, c.adapter);
    const validity: LevelValidity =
      o.afterLevel && !interrupted ? await o.afterLevel(li) : { valid: true, reasons: [] };
    if (interrupted) validity.reasons.push('interrupted before the level finished');
    const stop = result.errorStop
      ? errorRateStop(levelWords(key), result.errorStop, plan.load.error_stop.rate)
      : validity.endRun
        ? driftStop(levelWords(key), validity.endRun)
        : null;
    if (stop) {
      validity.valid = false;
      // a drift's reasons are already the level's; an error-rate stop adds its own
      if (result.errorStop) validity.reasons.push(stop.message);
      c.progress.note(`benchgate: ${stop.message} [${stop.code}]`);
    }
    const summary = await summarizeStoredLevel(join(o.store.dir, REQUESTS_FILE), {
      levelIndex: li,
      level: key,
      percentiles: plan.percentiles,
      slo: o.probe?.slo ?? plan.slo,
      inFlightAtEnd: result.inFlightAtEnd,
      specCounters: { before, after, source: 'metrics-counters' },
      power: server.power,
      client: self,
      validity: interrupted ? { valid: false, reasons: validity.reasons } : validity,
    });
    const byTurn = turns?.finish(plan.percentiles);
    if (byTurn) summary.multiTurn = byTurn;
    o.store.writeLevel(summary);
    const prefixCache =
      work.expectedHitRate === null ? null : hits.rates(work.expectedHitRate, server.prefixCounters);
    if (prefixCache) {
      c.progress.note(prefixHitNote(prefixCache));
      writeJsonAtomic(join(o.store.dir, `prefix-cache-level-${li}.json`), { levelIndex: li, ...prefixCache });
    }
    troubled = !summary.validity.valid || sawError;
    return { summary, interrupted, prefixCache, stop };
  };
}

function driftStop(level: string, why: string): LevelStop {
  return {
    code: 'BG_E_CHECK_FAILED',
    endsRun: true,
    message: `the server drifted during level ${level} and ${why}; later levels are not run`,
  };
}

function errorRateStop(level: string, s: ErrorStop, threshold: number): LevelStop {
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const serverDead = s.failed === s.total;
  return {
    code: 'BG_E_LEVEL_ERROR_RATE',
    endsRun: serverDead,
    message:
      `level ${level} stopped: ${s.failed} of ${s.total} requests failed (${pct(s.rate)}, above the ${pct(threshold)} of load.error_stop.rate); ` +
      `most common: ${s.topCode} ×${s.topCount} (${s.topMessage.slice(0, 200)}); the records so far are kept and the level is invalid` +
      (serverDead
        ? '; no request succeeded, so the server is taken as dead and later levels are not run'
        : ''),
  };
}
