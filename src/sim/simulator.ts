// The simulated inference server: owns the HTTP listener, the simulated process lifecycle (load,
// ready, crash, restart), the one scheduler, the engine logs and the faults, and routes each path of
// the chosen flavour (sglang, vllm, openai) to its handler.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { monoNowMs } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import { type Rng, seededRng } from '../core/seeded-random.js';
import type { SimExit, SimulatorHandle, SimulatorOptions } from './api.js';
import { deriveServedConfig, envFlagTrue, type ServedConfig } from './engine-args.js';
import {
  LogSink,
  sglangCrashLines,
  sglangDecodeLine,
  sglangLoadLines,
  sglangPrefillLine,
  sglangReadyLines,
  sglangStartErrorLines,
  sglangStartLines,
  vllmEngineStatsLine,
  vllmLoadLines,
  vllmReadyLines,
  vllmSpecDecodingLine,
  vllmStartLines,
} from './engine-logs.js';
import { type Faults, parseFaults } from './faults.js';
import { FixedScheduler } from './fixed-scheduler.js';
import { type GenerationSpec, type StreamFault, serveGeneration } from './generation.js';
import { readJsonBody, sendJson, sendNotFound, sendOpenAiError, sendText } from './http-util.js';
import { type MetricsSnapshot, sglangMetrics, vllmMetrics } from './metrics-text.js';
import type { ModelConfig } from './perf-model.js';
import { resolveProfile, type SimProfile } from './profiles.js';
import { newCounters, type Scheduler, type SchedulerCounters, type SimRequest } from './request.js';
import { RooflineScheduler } from './roofline-scheduler.js';
import { applyChatTemplate, type ChatMessage, countTokens, detokenize, tokenize } from './tokenizer.js';

export const SGLANG_VERSION = '0.5.5';
export const VLLM_VERSION = '0.11.0';
const TRUTH_RING = 2048;

type Phase = 'loading' | 'ready' | 'crashed' | 'closed';

/** Server-side truth for one request, as served at GET /_sim/requests. */
export interface RequestTruth {
  id: string;
  index: number;
  api: string;
  state: string;
  promptTokens: number;
  completionTokens: number;
  verifyCt: number;
  acceptedDraftTokens: number;
  /** Monotonic ms (performance.now() of the simulator process). */
  arrivalMs: number;
  chunkWriteMs: number[];
  chunkTokens: number[];
  /** Simulated seconds since the current simulated process start. */
  arrivalSimS: number;
  firstTokenSimS: number | null;
  finishSimS: number | null;
}

function driftConfig(c: ServedConfig): ServedConfig {
  if (!c.disableOverlapSchedule) {
    return {
      ...c,
      disableOverlapSchedule: true,
      engineArgs: { ...c.engineArgs, disable_overlap_schedule: true },
    };
  }
  const mrr = Math.max(1, Math.floor(c.maxRunningRequests / 2));
  const key = c.flavor === 'sglang' ? 'max_running_requests' : 'max_num_seqs';
  return { ...c, maxRunningRequests: mrr, engineArgs: { ...c.engineArgs, [key]: mrr } };
}

function staleConfig(
  c: ServedConfig,
  profile: SimProfile,
  env: Record<string, string | undefined>,
): ServedConfig {
  const argv = c.specAlgorithm
    ? ['--tp-size', String(c.tpSize)]
    : ['--tp-size', String(c.tpSize), '--speculative-algorithm', 'EAGLE3', '--speculative-eagle-topk', '4'];
  argv.push('--speculative-num-steps', '3', '--speculative-num-draft-tokens', '8');
  if (!c.specAlgorithm)
    return deriveServedConfig(c.flavor, profile, argv, { ...env, SGLANG_ENABLE_SPEC_V2: undefined });
  return deriveServedConfig(c.flavor, profile, ['--tp-size', String(c.tpSize)], env);
}

export class SimulatedServer {
  readonly opts: SimulatorOptions;
  readonly profile: SimProfile;
  readonly requested: ServedConfig;
  readonly served: ServedConfig;
  readonly faults: Faults;
  private readonly env: Record<string, string | undefined>;
  private readonly timeScale: number;
  private readonly log: LogSink;
  private readonly faultRng: Rng;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly openResponses = new Set<ServerResponse>();
  private phase: Phase = 'loading';
  private scheduler!: Scheduler;
  private loadTimer: NodeJS.Timeout | null = null;
  private readyWaiters: (() => void)[] = [];
  private exitResolve!: (e: SimExit) => void;
  readonly exited: Promise<SimExit>;
  readonly ready: Promise<void>;
  private processStartEpochMs = 0;
  private pid = process.pid;
  private restarts = 0;
  private requestIndex = 0;
  private finishedSinceStart = 0;
  private truth: SimRequest[] = [];
  private truthApi = new WeakMap<SimRequest, string>();
  private lastVllmStats: { simS: number; counters: SchedulerCounters } | null = null;
  host = '127.0.0.1';
  port = 0;

  constructor(opts: SimulatorOptions) {
    this.opts = opts;
    this.env = opts.env ?? process.env;
    this.timeScale = opts.timeScale ?? 1;
    if (!(this.timeScale > 0))
      throw new BenchgateError(
        'BG_E_USAGE',
        `Expected --time-scale to be a positive number; found ${opts.timeScale}.`,
      );
    this.faults = parseFaults(opts.faults);
    const profile = resolveProfile(opts.profile);
    if (opts.ttftMs !== undefined) profile.ttftMs = opts.ttftMs;
    if (opts.itlMs !== undefined) profile.itlMs = opts.itlMs;
    if (opts.tokensPerChunk !== undefined)
      profile.tokensPerChunk = Math.max(1, Math.floor(opts.tokensPerChunk));
    this.profile = profile;
    const flavor = opts.flavor ?? 'sglang';
    this.requested = deriveServedConfig(flavor, profile, opts.engineArgs ?? [], this.env);
    this.served = this.faults.configDrift ? driftConfig(this.requested) : this.requested;
    this.faultRng = seededRng((opts.seed ?? this.requested.randomSeed ?? 0) ^ 0x5eed);
    this.log = new LogSink(opts.logFile, opts.onLog, true);
    this.exited = new Promise((r) => {
      this.exitResolve = r;
    });
    this.ready = new Promise((r) => this.readyWaiters.push(r));
  }

  /** Model config the performance model uses (from the served, possibly drifted, configuration). */
  private modelConfig(): ModelConfig {
    const c = this.served;
    return {
      tpSize: c.tpSize,
      overlap: !c.disableOverlapSchedule,
      spec:
        c.specAlgorithm && c.specNumSteps && c.specNumDraftTokens
          ? { numSteps: c.specNumSteps, topk: c.specTopk ?? 1, numDraftTokens: c.specNumDraftTokens }
          : null,
    };
  }

  private newScheduler(): Scheduler {
    const beforeFirstDecode = this.faults.crashOnFirstDecode ? () => this.crash() : undefined;
    if (this.profile.kind === 'fixed') {
      return new FixedScheduler({
        ttftMs: this.profile.ttftMs,
        itlMs: this.profile.itlMs,
        tokensPerChunk: this.profile.tokensPerChunk,
        timeScale: this.timeScale,
        beforeFirstDecode,
      });
    }
    const model = this.modelConfig();
    const spec = model.spec !== null;
    return new RooflineScheduler({
      profile: this.profile,
      model,
      maxRunningRequests: this.served.maxRunningRequests,
      kvCapacityTokens: this.served.maxTotalNumTokens,
      chunkedPrefillSize: this.served.chunkedPrefillSize,
      timeScale: this.timeScale,
      decodeLogInterval: this.served.decodeLogInterval,
      beforeFirstDecode,
      log: (kind, f) => {
        if (this.served.flavor === 'sglang') {
          this.log.write(
            kind === 'decode' ? sglangDecodeLine(new Date(), f, spec) : sglangPrefillLine(new Date(), f),
          );
        } else if (this.served.flavor === 'vllm' && kind === 'decode') {
          this.writeVllmStats();
        }
      },
    });
  }

  /** vllm's periodic engine and SpecDecoding stats lines, over the window since the previous ones. */
  private writeVllmStats(): void {
    const sch = this.scheduler;
    const now = sch.simNowS();
    const cur: SchedulerCounters = {
      ...sch.counters,
      specAcceptedPerPos: [...sch.counters.specAcceptedPerPos],
    };
    // the first window starts from zeroed totals (only totals are differenced below)
    const prev = this.lastVllmStats ?? { simS: 0, counters: newCounters() };
    this.lastVllmStats = { simS: now, counters: cur };
    const spanS = Math.max(1e-9, now - prev.simS);
    const at = new Date();
    this.log.write(
      vllmEngineStatsLine(at, this.pid, {
        promptTokS: (cur.promptTokensTotal - prev.counters.promptTokensTotal) / spanS,
        genTokS: (cur.generationTokensTotal - prev.counters.generationTokensTotal) / spanS,
        running: sch.numRunning(),
        waiting: sch.numQueued(),
        kvUsagePct: (100 * sch.kvUsedTokens()) / this.served.maxTotalNumTokens,
      }),
    );
    if (!this.served.specAlgorithm) return;
    const drafts = cur.specVerifyCt - prev.counters.specVerifyCt;
    if (drafts <= 0) return;
    const acceptedPerPos = Array.from(
      { length: this.served.specNumSteps ?? 0 },
      (_, i) => (cur.specAcceptedPerPos[i] ?? 0) - (prev.counters.specAcceptedPerPos[i] ?? 0),
    );
    this.log.write(
      vllmSpecDecodingLine(at, this.pid, {
        drafts,
        drafted: cur.specDraftTokensTotal - prev.counters.specDraftTokensTotal,
        accepted: cur.specAcceptedTotal - prev.counters.specAcceptedTotal,
        spanS,
        acceptedPerPos,
      }),
    );
  }

  async start(): Promise<void> {
    const host = this.opts.host ?? '127.0.0.1';
    const port = this.opts.port ?? 0;
    if (this.faults.staleLog) this.writeStaleLog();
    if (this.requested.startError) {
      this.writeStartLines();
      if (this.requested.flavor === 'sglang') {
        for (const l of sglangStartErrorLines(this.requested.startError)) this.log.write(l);
      }
      throw new BenchgateError(
        'BG_E_SIM',
        `The simulated ${this.requested.flavor} refused to start: ${this.requested.startError.type}: ${this.requested.startError.message}`,
      );
    }
    this.server = createServer((req, res) => {
      this.route(req, res).catch((e: unknown) => {
        if (!res.headersSent)
          sendOpenAiError(res, 500, `Internal error: ${(e as Error).message}`, 'InternalServerError');
        else res.destroy();
      });
    });
    this.server.keepAliveTimeout = 65_000;
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.setNoDelay(true);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      const onError = (e: NodeJS.ErrnoException) => {
        if (e.code === 'EADDRINUSE') {
          reject(
            new BenchgateError(
              'BG_E_SIM',
              `Expected port ${port} on ${host} to be free; it is already in use.`,
            ),
          );
        } else if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') {
          reject(
            new BenchgateError(
              'BG_E_SIM',
              `Expected a local address to bind; ${host} is not one (${e.code}).`,
            ),
          );
        } else reject(new BenchgateError('BG_E_SIM', `Could not listen on ${host}:${port}: ${e.message}.`));
      };
      this.server!.once('error', onError);
      this.server!.listen({ port, host, backlog: 4096 }, () => {
        this.server!.off('error', onError);
        resolve();
      });
    });
    const addr = this.server.address();
    this.host = host;
    this.port = typeof addr === 'object' && addr ? addr.port : port;
    // the served process reports where it really listens
    for (const c of new Set([this.requested, this.served])) {
      c.engineArgs.host = host;
      c.engineArgs.port = this.port;
    }
    this.beginProcess();
  }

  /** Starts (or restarts) the simulated engine process: logs, load timer, fresh scheduler. */
  private beginProcess(): void {
    this.phase = 'loading';
    this.processStartEpochMs = Math.max(Date.now(), this.processStartEpochMs + 1000);
    this.finishedSinceStart = 0;
    this.lastVllmStats = null;
    this.scheduler?.stop();
    this.scheduler = this.newScheduler();
    this.writeStartLines();
    const loadS = (this.opts.loadTimeS ?? this.profile.loadTimeS / this.timeScale) + this.faults.slowStartS;
    this.loadTimer = setTimeout(() => this.finishLoad(), Math.max(0, loadS * 1000));
  }

  private writeStartLines(
    config: ServedConfig = this.requested,
    at = new Date(this.processStartEpochMs || Date.now()),
  ) {
    if (config.flavor === 'sglang') for (const l of sglangStartLines(config, at)) this.log.write(l);
    else if (config.flavor === 'vllm')
      for (const l of vllmStartLines(config, at, VLLM_VERSION, this.pid)) this.log.write(l);
  }

  private writeStaleLog(): void {
    const stale = staleConfig(this.requested, this.profile, this.env);
    const at = new Date(Date.now() - 3_600_000);
    const lines: string[] = [];
    if (stale.flavor === 'sglang') {
      lines.push(...sglangStartLines(stale, at), ...sglangLoadLines(stale, at, this.profile.architecture));
      lines.push(
        ...sglangReadyLines(at, this.opts.host ?? '127.0.0.1', this.opts.port || 30000, this.pid - 1),
      );
    } else {
      lines.push(
        ...vllmStartLines(stale, at, VLLM_VERSION, this.pid - 1),
        ...vllmLoadLines(stale, at, this.pid - 1),
      );
      lines.push(...vllmReadyLines(at, '127.0.0.1', this.opts.port || 8000, this.pid - 1));
    }
    for (const l of lines) this.log.write(l);
  }

  private finishLoad(): void {
    this.loadTimer = null;
    if (this.phase !== 'loading') return;
    const now = new Date();
    const c = this.requested;
    if (c.flavor === 'sglang') {
      for (const l of sglangLoadLines(c, now, this.profile.architecture)) this.log.write(l);
      for (const l of sglangReadyLines(now, this.host, this.port, this.pid)) this.log.write(l);
    } else if (c.flavor === 'vllm') {
      for (const l of vllmLoadLines(c, now, this.pid)) this.log.write(l);
      for (const l of vllmReadyLines(now, this.host, this.port, this.pid)) this.log.write(l);
    }
    this.phase = 'ready';
    for (const w of this.readyWaiters.splice(0)) w();
  }

  /** crash-on-first-decode: traceback, stop serving, report a non-zero exit. Returns false to stop the loop. */
  private crash(): boolean {
    for (const l of sglangCrashLines(new Date())) this.log.write(l);
    this.phase = 'crashed';
    this.shutdown();
    this.exitResolve({ code: 1, reason: 'crash-on-first-decode: the scheduler raised AttributeError' });
    return false;
  }

  private restart(): void {
    if (this.phase !== 'ready') return;
    this.restarts++;
    this.pid = process.pid + this.restarts * 1000;
    for (const r of this.openResponses) r.destroy();
    this.openResponses.clear();
    this.beginProcess();
  }

  private shutdown(): void {
    this.scheduler?.stop();
    if (this.loadTimer) clearTimeout(this.loadTimer);
    for (const r of this.openResponses) {
      if (this.phase === 'crashed') r.destroy();
      else r.end();
    }
    this.openResponses.clear();
    this.server?.close();
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    if (this.phase === 'closed') return;
    const wasCrashed = this.phase === 'crashed';
    this.phase = 'closed';
    this.shutdown();
    if (!wasCrashed) this.exitResolve({ code: 0, reason: 'closed' });
    for (const w of this.readyWaiters.splice(0)) w();
  }

  handle(): SimulatorHandle {
    return {
      url: `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}`,
      port: this.port,
      close: () => this.close(),
      ready: this.ready,
      exited: this.exited,
    };
  }

  // ---------------------------------------------------------------- routing

  private authorized(req: IncomingMessage): boolean {
    const key = this.served.apiKey;
    if (!key) return true;
    return req.headers.authorization === `Bearer ${key}`;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const flavor = this.served.flavor;
    if (path === '/_sim/requests' && method === 'GET') return this.sendTruth(res);
    if (this.phase !== 'ready') {
      if (flavor === 'openai' || path === '/health' || path === '/health_generate') {
        return sendJson(res, 503, { detail: 'Service Unavailable' });
      }
      return sendOpenAiError(
        res,
        503,
        'The server is not ready yet (model loading).',
        'ServiceUnavailableError',
      );
    }
    if (path !== '/health' && path !== '/metrics' && !this.authorized(req)) {
      return sendJson(res, 401, { error: 'Unauthorized' });
    }
    const body = method === 'POST' ? await this.body(req, res) : {};
    if (body === undefined) return;
    const common = await this.routeOpenAi(path, method, body as Record<string, unknown>, res);
    if (common) return;
    if (flavor === 'sglang' && this.routeSglang(path, method, body as Record<string, unknown>, res)) return;
    if (flavor === 'vllm' && this.routeVllm(path, method, body as Record<string, unknown>, res)) return;
    sendNotFound(res);
  }

  private async body(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    try {
      const b = await readJsonBody(req);
      if (b === null || typeof b !== 'object' || Array.isArray(b)) {
        sendOpenAiError(res, 400, 'Expected a JSON object as the request body.');
        return undefined;
      }
      return b;
    } catch (e) {
      sendOpenAiError(res, 400, `Expected a JSON request body; ${(e as Error).message}.`);
      return undefined;
    }
  }

  private modelsList() {
    const c = this.served;
    const created = Math.floor(this.processStartEpochMs / 1000);
    const owner = c.flavor === 'sglang' ? 'sglang' : c.flavor === 'vllm' ? 'vllm' : 'system';
    return {
      object: 'list',
      data: [
        {
          id: c.servedModelName,
          object: 'model',
          created,
          owned_by: owner,
          root: c.modelPath,
          parent: null,
          max_model_len: c.contextLength,
          permission: [],
        },
      ],
    };
  }

  private async routeOpenAi(
    path: string,
    method: string,
    body: Record<string, unknown>,
    res: ServerResponse,
  ) {
    if (path === '/v1/models' && method === 'GET') {
      sendJson(res, 200, this.modelsList());
      return true;
    }
    if ((path === '/v1/completions' || path === '/v1/chat/completions') && method === 'POST') {
      const chat = path === '/v1/chat/completions';
      let promptTokens: number;
      if (chat) {
        if (!Array.isArray(body.messages) || body.messages.length === 0) {
          sendOpenAiError(res, 400, 'Expected "messages" to be a non-empty list.');
          return true;
        }
        promptTokens = countTokens(applyChatTemplate(body.messages as ChatMessage[]));
      } else {
        const p = body.prompt;
        if (typeof p === 'string') promptTokens = countTokens(p);
        else if (Array.isArray(p) && p.every((x) => typeof x === 'number')) promptTokens = p.length;
        else if (Array.isArray(p) && p.length === 1 && typeof p[0] === 'string')
          promptTokens = countTokens(p[0]);
        else {
          sendOpenAiError(
            res,
            400,
            'Expected "prompt" to be a string, one string in a list, or a list of token ids.',
          );
          return true;
        }
      }
      const maxRaw = chat ? (body.max_completion_tokens ?? body.max_tokens) : body.max_tokens;
      const maxNewTokens = maxRaw === undefined || maxRaw === null ? (chat ? 128 : 16) : Number(maxRaw);
      const so = (body.stream_options ?? {}) as Record<string, unknown>;
      this.generate(res, {
        api: chat ? 'chat' : 'completions',
        model: typeof body.model === 'string' ? body.model : this.served.servedModelName,
        promptTokens,
        maxNewTokens,
        stream: body.stream === true,
        includeUsage: so.include_usage === true,
        continuousUsage: so.continuous_usage_stats === true,
        speculative: this.served.specAlgorithm !== null,
      });
      return true;
    }
    if (this.served.flavor === 'openai') return false;
    if (path === '/tokenize' && method === 'POST') {
      let text = '';
      if (Array.isArray(body.messages)) text = applyChatTemplate(body.messages as ChatMessage[]);
      else if (typeof body.prompt === 'string') text = body.prompt;
      else if (typeof body.text === 'string') text = body.text;
      else {
        sendOpenAiError(res, 400, 'Expected "prompt" (a string) or "messages" in the /tokenize body.');
        return true;
      }
      const tokens = tokenize(text);
      sendJson(res, 200, {
        count: tokens.length,
        max_model_len: this.served.contextLength,
        tokens,
        token_strs: null,
      });
      return true;
    }
    if (path === '/detokenize' && method === 'POST') {
      const ids = body.tokens;
      if (!Array.isArray(ids) || !ids.every((x) => Number.isInteger(x) && x >= 0)) {
        sendOpenAiError(res, 400, 'Expected "tokens" to be a list of non-negative token ids.');
        return true;
      }
      const text = detokenize(ids as number[]);
      sendJson(res, 200, this.served.flavor === 'sglang' ? { text } : { prompt: text });
      return true;
    }
    if (path === '/health' && method === 'GET') {
      sendText(res, 200, '', 'application/json');
      return true;
    }
    if (path === '/metrics' && method === 'GET') {
      const snap = this.metricsSnapshot();
      sendText(
        res,
        200,
        this.served.flavor === 'sglang' ? sglangMetrics(snap) : vllmMetrics(snap),
        'text/plain; version=0.0.4; charset=utf-8',
      );
      return true;
    }
    return false;
  }

  private avgAcceptLen(): number {
    const c = this.scheduler.counters;
    return c.specVerifyCt > 0 ? (c.specAcceptedTotal + c.specVerifyCt) / c.specVerifyCt : 0;
  }

  private metricsSnapshot(): MetricsSnapshot {
    return {
      config: this.served,
      counters: this.scheduler.counters,
      running: this.scheduler.numRunning(),
      queued: this.scheduler.numQueued(),
      kvUsedTokens: this.scheduler.kvUsedTokens(),
      processStartEpochS: this.processStartEpochMs / 1000,
      avgAcceptLen: this.avgAcceptLen(),
    };
  }

  private serverInfo() {
    const c = this.served;
    const internal: Record<string, unknown> = {
      last_gen_throughput: this.scheduler.counters.genThroughputTokS,
      memory_usage: { weight: 32.24, kvcache: 9.42, token_capacity: c.maxTotalNumTokens, graph: 1.21 },
      effective_max_running_requests_per_dp: c.maxRunningRequests,
    };
    if (c.specAlgorithm) internal.avg_spec_accept_length = this.avgAcceptLen();
    return {
      ...c.engineArgs,
      version: SGLANG_VERSION,
      max_total_num_tokens: c.maxTotalNumTokens,
      status: 'ready',
      internal_states: [internal],
    };
  }

  private routeSglang(
    path: string,
    method: string,
    body: Record<string, unknown>,
    res: ServerResponse,
  ): boolean {
    if (method === 'GET' && (path === '/server_info' || path === '/get_server_info')) {
      sendJson(res, 200, this.serverInfo());
      return true;
    }
    if (method === 'GET' && (path === '/model_info' || path === '/get_model_info')) {
      sendJson(res, 200, {
        model_path: this.served.modelPath,
        tokenizer_path: this.served.modelPath,
        is_generation: true,
        preferred_sampling_params: null,
        weight_version: 'default',
        has_image_understanding: false,
        has_audio_understanding: false,
        model_type: this.profile.architecture.replace(/ForCausalLM$/, '').toLowerCase(),
        architectures: [this.profile.architecture],
      });
      return true;
    }
    if (method === 'GET' && path === '/health_generate') {
      sendText(res, 200, '', 'application/json');
      return true;
    }
    if ((method === 'POST' || method === 'GET') && path === '/flush_cache') {
      sendText(
        res,
        200,
        'Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n',
      );
      return true;
    }
    if (method === 'POST' && path === '/generate') {
      let promptTokens: number;
      if (typeof body.text === 'string') promptTokens = countTokens(body.text);
      else if (Array.isArray(body.input_ids) && body.input_ids.every((x) => typeof x === 'number'))
        promptTokens = body.input_ids.length;
      else {
        sendOpenAiError(
          res,
          400,
          'Expected "text" (a string) or "input_ids" (a list of ids) in the /generate body.',
        );
        return true;
      }
      const sp = (body.sampling_params ?? {}) as Record<string, unknown>;
      this.generate(res, {
        api: 'native',
        model: this.served.servedModelName,
        promptTokens,
        maxNewTokens:
          sp.max_new_tokens === undefined || sp.max_new_tokens === null ? 128 : Number(sp.max_new_tokens),
        stream: body.stream === true,
        includeUsage: false,
        continuousUsage: false,
        speculative: this.served.specAlgorithm !== null,
      });
      return true;
    }
    return false;
  }

  private routeVllm(
    path: string,
    method: string,
    _body: Record<string, unknown>,
    res: ServerResponse,
  ): boolean {
    if (method === 'GET' && path === '/version') {
      sendJson(res, 200, { version: VLLM_VERSION });
      return true;
    }
    if (method === 'GET' && path === '/server_info' && envFlagTrue(this.env.VLLM_SERVER_DEV_MODE)) {
      const init = vllmStartLines(this.served, new Date(this.processStartEpochMs), VLLM_VERSION, this.pid)[2];
      sendJson(res, 200, { vllm_config: init.slice(init.indexOf('with config: ') + 'with config: '.length) });
      return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- generation

  private generate(res: ServerResponse, spec: GenerationSpec): void {
    if (!Number.isInteger(spec.maxNewTokens) || spec.maxNewTokens < 1) {
      sendOpenAiError(res, 400, `Expected max tokens to be a positive integer; found ${spec.maxNewTokens}.`);
      return;
    }
    if (spec.promptTokens + spec.maxNewTokens > this.served.contextLength) {
      sendOpenAiError(
        res,
        400,
        `This model's maximum context length is ${this.served.contextLength} tokens. However, you requested ${spec.promptTokens + spec.maxNewTokens} tokens (${spec.promptTokens} in the messages, ${spec.maxNewTokens} in the completion). Please reduce the length of the messages or completion.`,
      );
      return;
    }
    if (this.faults.httpErrors > 0 && this.faultRng() < this.faults.httpErrors) {
      const status = this.faultRng() < 0.5 ? 500 : 503;
      sendOpenAiError(
        res,
        status,
        status === 500 ? 'Internal server error' : 'Service unavailable',
        status === 500 ? 'InternalServerError' : 'ServiceUnavailableError',
      );
      return;
    }
    let fault: StreamFault = null;
    if (spec.stream) {
      const f = this.faults;
      if (f.stallStream > 0 && this.faultRng() < f.stallStream) fault = 'stall';
      else if (f.malformedChunk > 0 && this.faultRng() < f.malformedChunk) fault = 'malformed';
      else if (f.resetMidStream > 0 && this.faultRng() < f.resetMidStream) fault = 'reset';
    }
    const seed = (this.opts.seed ?? this.served.randomSeed ?? 0) * 1_000_003;
    serveGeneration(res, spec, {
      fault,
      rng: this.faultRng,
      createRequest: (s, onTokens) => {
        const index = ++this.requestIndex;
        const r: SimRequest = {
          id: `${index.toString(16).padStart(8, '0')}${Math.floor(this.processStartEpochMs).toString(16).slice(-8)}`,
          index,
          promptTokens: Math.max(1, s.promptTokens),
          maxNewTokens: s.maxNewTokens,
          prefilled: 0,
          generated: 0,
          state: 'queued',
          rng: seededRng(seed + index),
          verifyCt: 0,
          acceptedDraftTokens: 0,
          arrivalMs: monoNowMs(),
          arrivalSimS: 0,
          firstTokenSimS: null,
          finishSimS: null,
          chunkWriteMs: [],
          chunkTokens: [],
          onTokens,
        };
        this.truth.push(r);
        this.truthApi.set(r, s.api);
        if (this.truth.length > TRUTH_RING) this.truth.splice(0, this.truth.length - TRUTH_RING);
        return r;
      },
      submit: (r) => this.scheduler.submit(r),
      abort: (r) => this.scheduler.abort(r),
      track: (r) => {
        this.openResponses.add(r);
        r.on('close', () => this.openResponses.delete(r));
      },
      finished: (_r, ok) => {
        if (!ok) return;
        this.finishedSinceStart++;
        if (this.faults.restartAfter > 0 && this.finishedSinceStart >= this.faults.restartAfter) {
          setImmediate(() => this.restart());
        }
      },
    });
  }

  private sendTruth(res: ServerResponse): void {
    const requests: RequestTruth[] = this.truth.map((r) => ({
      id: r.id,
      index: r.index,
      api: this.truthApi.get(r) ?? '',
      state: r.state,
      promptTokens: r.promptTokens,
      completionTokens: r.generated,
      verifyCt: r.verifyCt,
      acceptedDraftTokens: r.acceptedDraftTokens,
      arrivalMs: r.arrivalMs,
      chunkWriteMs: r.chunkWriteMs,
      chunkTokens: r.chunkTokens,
      arrivalSimS: r.arrivalSimS,
      firstTokenSimS: r.firstTokenSimS,
      finishSimS: r.finishSimS,
    }));
    sendJson(res, 200, {
      timeOriginEpochMs: performance.timeOrigin,
      processStartEpochMs: this.processStartEpochMs,
      restarts: this.restarts,
      phase: this.phase,
      timeScale: this.timeScale,
      requests,
    });
  }
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const sim = new SimulatedServer(options);
  await sim.start();
  return sim.handle();
}
