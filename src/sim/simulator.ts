// The simulated inference server: puts together the flavour's surface (flavors.ts), the simulated
// process (sim-process.ts), its scheduler, the engine log, the faults and the HTTP listener, and
// routes each request to the flavour's handler.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { BenchgateError } from '../core/errors.js';
import { type Rng, seededRng } from '../core/seeded-random.js';
import { Admission } from './admission.js';
import type { SimExit, SimulatorHandle, SimulatorOptions } from './api.js';
import { LogSink } from './engine-logs.js';
import { driftConfig, routeFault, staleLogLines } from './fault-effects.js';
import { type Faults, parseFaults } from './faults.js';
import type { FlavorSurface, Route, SurfaceContext } from './flavor.js';
import { flavorSurface } from './flavors.js';
import type { GenerationSpec } from './generation-spec.js';
import { HttpListener } from './http-listener.js';
import { type ErrorSender, readJsonBody, sendJson, sendNotFound } from './http-util.js';
import { startLoadProgress } from './load-progress.js';
import type { MetricsSnapshot } from './metrics-text.js';
import { type PrefixCache, prefixCacheFor } from './prefix-cache.js';
import { resolveProfile, type SimProfile } from './profiles.js';
import type { Scheduler } from './request.js';
import { createScheduler } from './scheduler-factory.js';
import type { ServedConfig, SimEnv } from './served-config.js';
import { SimProcess } from './sim-process.js';
import { TruthLog } from './truth.js';

export type { RequestTruth } from './truth.js';

/** The profile with the `fixed` knobs of the options applied. */
function profileFor(opts: SimulatorOptions): SimProfile {
  const profile = resolveProfile(opts.profile);
  if (opts.ttftMs !== undefined) profile.ttftMs = opts.ttftMs;
  if (opts.itlMs !== undefined) profile.itlMs = opts.itlMs;
  if (opts.tokensPerChunk !== undefined)
    profile.tokensPerChunk = Math.max(1, Math.floor(opts.tokensPerChunk));
  return profile;
}

/** `METHOD path` → route, for one flavour. */
function routeTable(surface: FlavorSurface): Map<string, Route> {
  const table = new Map<string, Route>();
  for (const r of surface.routes)
    for (const m of r.methods) for (const p of r.paths) table.set(`${m} ${p}`, r);
  return table;
}

export class SimulatedServer implements SurfaceContext {
  readonly opts: SimulatorOptions;
  readonly profile: SimProfile;
  readonly requested: ServedConfig;
  readonly served: ServedConfig;
  readonly faults: Faults;
  readonly env: SimEnv;
  readonly exited: Promise<SimExit>;
  readonly ready: Promise<void>;
  private readonly surface: FlavorSurface;
  private readonly routes: Map<string, Route>;
  private readonly timeScale: number;
  private readonly log: LogSink;
  private readonly faultRng: Rng;
  private readonly proc: SimProcess;
  private readonly truth = new TruthLog();
  private readonly admission: Admission;
  private readonly prefixCache: PrefixCache | null;
  private listener: HttpListener | null = null;
  private loadProgress: { stop(loaded: boolean): void } = { stop() {} };
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
    this.profile = profileFor(opts);
    this.surface = flavorSurface(opts.flavor ?? 'sglang');
    this.routes = routeTable(this.surface);
    this.requested = this.surface.deriveConfig(this.profile, opts.engineArgs ?? [], this.env);
    this.served = this.faults.configDrift ? driftConfig(this.requested) : this.requested;
    this.faultRng = seededRng((opts.seed ?? this.requested.randomSeed ?? 0) ^ 0x5eed);
    this.log = new LogSink(opts.logFile, opts.onLog, true);
    this.proc = new SimProcess({
      newScheduler: () => this.newScheduler(),
      started: (at) => this.writeStarted(at),
      loaded: (at) => this.writeLoaded(at),
      loadTimeS: () => this.loadTimeS(),
      dropResponses: () => this.listener?.dropResponses(),
      stopServing: (crashed) => this.listener?.stop(crashed),
    });
    this.exited = this.proc.exited;
    this.ready = this.proc.ready;
    this.prefixCache = prefixCacheFor(this.served);
    this.admission = new Admission({
      served: this.served,
      faults: this.faults,
      faultRng: this.faultRng,
      seed: opts.seed ?? this.served.randomSeed ?? 0,
      process: this.proc,
      truth: this.truth,
      track: (res) => this.listener?.track(res),
      sendError: this.surface.sendError,
      lengthError: this.surface.lengthError,
      onFinished: (r) =>
        this.writeLines(
          this.surface.logs.requestFinished?.(this.served, r, Date.now() - this.proc.startEpochMs) ?? [],
        ),
      prefixCache: this.prefixCache,
    });
  }

  get sendError(): ErrorSender {
    return this.surface.sendError;
  }

  get pid(): number {
    return this.proc.pid;
  }

  get processStartEpochMs(): number {
    return this.proc.startEpochMs;
  }

  get scheduler(): Scheduler {
    return this.proc.scheduler;
  }

  generate(res: ServerResponse, spec: GenerationSpec): void {
    this.admission.admit(res, spec);
  }

  metricsSnapshot(): MetricsSnapshot {
    const sch = this.proc.scheduler;
    const c = sch.counters;
    return {
      config: this.served,
      counters: c,
      running: sch.numRunning(),
      queued: sch.numQueued(),
      kvUsedTokens: sch.kvUsedTokens(),
      processStartEpochS: this.proc.startEpochMs / 1000,
      avgAcceptLen: c.specVerifyCt > 0 ? (c.specAcceptedTotal + c.specVerifyCt) / c.specVerifyCt : 0,
      prefixCache: { ...(this.prefixCache?.stats ?? { queryTokens: 0, hitTokens: 0 }) },
    };
  }

  dropPrefixCache(): number {
    return this.prefixCache?.clear() ?? 0;
  }

  private writeLines(lines: string[]): void {
    for (const l of lines) this.log.write(l);
  }

  /** Real seconds the model load takes: the option, else the profile's at this time scale, plus slow-start. */
  loadTimeS(): number {
    return (this.opts.loadTimeS ?? this.profile.loadTimeS / this.timeScale) + this.faults.slowStartS;
  }

  /** Start-up lines, the load's first lines, and its progress while it runs. */
  private writeStarted(at: Date): void {
    const logs = this.surface.logs;
    this.writeLines(logs.start(this.requested, at, this.proc.pid));
    this.writeLines(logs.loading?.(this.requested, at, this.proc.pid) ?? []);
    this.loadProgress.stop(false);
    if (logs.loading) this.loadProgress = startLoadProgress(this.loadTimeS(), (l) => this.log.write(l));
  }

  private writeLoaded(at: Date): void {
    const logs = this.surface.logs;
    const pid = this.proc.pid;
    this.loadProgress.stop(true);
    this.writeLines(logs.loaded(this.requested, at, pid, this.profile.architecture));
    this.writeLines(logs.ready(at, this.host, this.port, pid));
  }

  private newScheduler(): Scheduler {
    const crash = () => {
      this.writeLines(this.surface.logs.crash(new Date()));
      this.proc.crash('crash-on-first-decode: the scheduler raised AttributeError');
      return false;
    };
    return createScheduler({
      profile: this.profile,
      served: this.served,
      // the slow fault: the modelled GPUs run slower in real time, everything else unchanged
      timeScale: this.timeScale / this.faults.slowFactor,
      beforeFirstDecode: this.faults.crashOnFirstDecode ? crash : undefined,
      stepLogger: this.surface.logs.stepLogger?.({
        served: this.served,
        pid: this.proc.pid,
        scheduler: () => this.proc.scheduler,
        write: (line) => this.log.write(line),
      }),
    });
  }

  async start(): Promise<void> {
    const host = this.opts.host ?? '127.0.0.1';
    const logs = this.surface.logs;
    if (this.faults.staleLog) {
      const where = { host: this.opts.host, port: this.opts.port, pid: this.proc.pid };
      this.writeLines(staleLogLines(this.requested, this.profile, this.env, logs, where));
    }
    const err = this.requested.startError;
    if (err) {
      this.writeLines(logs.start(this.requested, new Date(), this.proc.pid));
      this.writeLines(logs.startError(err));
      throw new BenchgateError(
        'BG_E_SIM',
        `The simulated ${this.requested.flavor} refused to start: ${err.type}: ${err.message}`,
      );
    }
    this.listener = new HttpListener((req, res) => this.route(req, res), this.surface.sendError, {
      ...this.surface.httpServer,
      httpThreads: this.opts.httpThreads ?? null,
      closeAfterStream: this.faults.closeAfterStream,
    });
    this.port = await this.listener.listen(host, this.opts.port ?? 0);
    this.host = host;
    // the served process reports where it really listens
    for (const c of new Set([this.requested, this.served])) {
      c.engineArgs.host = host;
      c.engineArgs.port = this.port;
    }
    this.proc.begin();
  }

  async close(): Promise<void> {
    this.loadProgress.stop(false);
    this.proc.close();
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

  private authorized(req: IncomingMessage, path: string): boolean {
    const key = this.served.apiKey;
    if (!key || this.surface.publicPaths.includes(path)) return true;
    return req.headers.authorization === `Bearer ${key}`;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (path === '/_sim/requests' && method === 'GET') {
      const p = this.proc;
      const header = { processStartEpochMs: p.startEpochMs, restarts: p.restarts, phase: p.phase };
      return this.truth.send(res, { ...header, timeScale: this.timeScale });
    }
    if (path === '/_sim/connections' && method === 'GET')
      return sendJson(res, 200, this.listener?.connections());
    if (this.proc.phase !== 'ready') return this.surface.sendLoading(res, path);
    if (!this.authorized(req, path)) return sendJson(res, 401, { error: 'Unauthorized' });
    if (await routeFault(this.faults, path, res)) return;
    const body = method === 'POST' ? await this.body(req, res) : {};
    if (body === undefined) return;
    const route =
      this.routes.get(`${method} ${path}`) ?? this.routes.get(`${method} ${path.replace(/\/[^/]+$/, '/*')}`);
    if (!route || (route.enabled && !route.enabled(this))) return sendNotFound(res);
    route.handle(this, body, res, url);
  }

  private async body(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const b = await readJsonBody(req);
      if (b === null || typeof b !== 'object' || Array.isArray(b)) {
        this.surface.sendError(res, 400, 'Expected a JSON object as the request body.');
        return undefined;
      }
      return b as Record<string, unknown>;
    } catch (e) {
      this.surface.sendError(res, 400, `Expected a JSON request body; ${(e as Error).message}.`);
      return undefined;
    }
  }
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const sim = new SimulatedServer(options);
  await sim.start();
  return sim.handle();
}
