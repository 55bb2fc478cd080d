// What one flavour of the simulator is (its engine flags, HTTP surface, log lines and /metrics), and
// the view of the running server its handlers get. A flavour is one `*-surface.ts` file exporting a
// FlavorSurface, registered in flavors.ts.

import type { ServerResponse } from 'node:http';
import type { HttpServerKind } from './connection-policy.js';
import type { GenerationSpec } from './generation-spec.js';
import type { ErrorSender } from './http-util.js';
import type { MetricsSnapshot } from './metrics-text.js';
import type { SimProfile } from './profiles.js';
import type { Scheduler, SimRequest } from './request.js';
import type { ServedConfig, SimEnv } from './served-config.js';

/** The running server as a handler sees it. */
export interface SurfaceContext {
  readonly served: ServedConfig;
  readonly profile: SimProfile;
  readonly env: SimEnv;
  /** Identity of the current simulated engine process. */
  readonly pid: number;
  readonly processStartEpochMs: number;
  readonly scheduler: Scheduler;
  /** Validates a generation request, applies the faults and serves it (stream or one body). */
  generate(res: ServerResponse, spec: GenerationSpec): void;
  metricsSnapshot(): MetricsSnapshot;
  /** Empties the prefix cache; the tokens it held (0 when the engine has none). */
  dropPrefixCache(): number;
  /** An error answer in the engine's body shape. */
  sendError: ErrorSender;
}

/** One endpoint. */
export interface Route {
  methods: readonly ('GET' | 'POST')[];
  /** Exact paths, or a prefix ending in `/*` for one trailing path parameter. */
  paths: readonly string[];
  /** When given and false, the path answers 404 (an endpoint switched off, e.g. by an env variable). */
  enabled?(ctx: SurfaceContext): boolean;
  /** `url` carries a path parameter's value and the query (llama.cpp's POST /slots/{id}?action=erase). */
  handle(ctx: SurfaceContext, body: Record<string, unknown>, res: ServerResponse, url: URL): void;
}

/** Periodic scheduler log lines (`Decode batch.`, vllm's stats window). */
export type StepLogger = (kind: 'prefill' | 'decode', fields: Record<string, number>) => void;

export interface StepLogContext {
  readonly served: ServedConfig;
  readonly pid: number;
  /** The scheduler the logger reports on (created after the logger). */
  scheduler(): Scheduler;
  write(line: string): void;
}

/** The engine's log lines at each point of the simulated process's life. */
export interface FlavorLogs {
  /** Start-up lines before the weights load (server args, warnings). */
  start(c: ServedConfig, at: Date, pid: number): string[];
  /** The traceback when the engine refuses to start (c.startError set). */
  startError(err: { type: string; message: string }): string[];
  /** The lines printed as the weights begin to load (the rest come with `loaded`, when they are in). */
  loading?(c: ServedConfig, at: Date, pid: number): string[];
  /** Weights loaded (load lines). */
  loaded(c: ServedConfig, at: Date, pid: number, architecture: string): string[];
  /** Listening and ready. */
  ready(at: Date, host: string, port: number, pid: number): string[];
  /** The crash-on-first-decode traceback. */
  crash(at: Date): string[];
  /** Port the engine listens on by default (used in the stale-log fault's earlier start). */
  defaultPort: number;
  /** Lines the engine prints when a request finishes (llama-server's timings); `elapsedMs` since the process start. */
  requestFinished?(c: ServedConfig, req: SimRequest, elapsedMs: number): string[];
  /** A fresh periodic logger for one process; none when the engine logs nothing per step. */
  stepLogger?(ctx: StepLogContext): StepLogger;
}

export interface FlavorSurface {
  /** Engine flags → served configuration, with the engine's argparse errors and derivations. */
  deriveConfig(profile: SimProfile, argv: string[], env: SimEnv): ServedConfig;
  /** Paths that answer without the API key. */
  publicPaths: readonly string[];
  /** The engine's error body. */
  sendError: ErrorSender;
  /** The engine's refusal of a request longer than the context (null when it fits). */
  lengthError(contextLength: number, promptTokens: number, maxNewTokens: number): string | null;
  /** Answers a request that arrives while the model loads (503). */
  sendLoading(res: ServerResponse, path: string): void;
  routes: readonly Route[];
  logs: FlavorLogs;
  /** How the engine's HTTP server treats connections: keep-alive timeout, request limit, announcements. */
  httpServer: HttpServerKind;
}
