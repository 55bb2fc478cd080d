// Engine-neutral view of a server's effective configuration, and the adapter contract each
// engine file implements. An engine's quirks live in its adapter and nowhere else.

import type { CacheFlush } from './cache-flush.js';

/**
 * One known configuration fact. A key absent from the ConfigFacts map is "unknown" (never false).
 * `source` says where it was read (e.g. `GET /server_info`, `server.log:12`, `/proc/123/environ`).
 */
export interface ConfigFact {
  value: string | number | boolean | null;
  source: string;
  /** True when derived rather than read directly (e.g. spec v2 inferred from overlap + EAGLE). */
  inferred?: boolean;
}

/**
 * Normalised keys shared by all engines (write expectations against these):
 *   engine, engine_version, model, served_model_name, tp_size, dp_size, pp_size, dtype, quantization,
 *   max_running_requests, context_length, overlap_schedule, speculative.algorithm,
 *   speculative.draft_model, speculative.num_steps, speculative.topk, speculative.num_draft_tokens,
 *   speculative.spec_v2
 * Engine-native keys are prefixed with the engine: `sglang.disable_overlap_schedule`, `vllm.max_num_seqs`.
 */
export type ConfigFacts = Record<string, ConfigFact>;

export type EngineName = 'sglang' | 'vllm' | 'llamacpp' | 'tgi' | 'openai';

/** The checkpoint's verified view of the target, stored in every run's manifest. */
export interface VerifiedTarget {
  url: string;
  engine: EngineName;
  engineVersion: string | null;
  model: string | null;
  config: ConfigFacts;
  /** Raw documents read (endpoint path or file → parsed JSON or text), secrets removed. */
  raw: Record<string, unknown>;
  /** Server process start time (ISO) when known (from /proc or the log). */
  processStartTime: string | null;
  /** Hash over normalised config, engine version, model identity and process start time. */
  fingerprint: string;
}

/** What a request asks for, independent of the engine and API. */
/** One chat message as sent in `messages`. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface GenerationParams {
  api: 'completions' | 'chat' | 'native';
  model: string;
  prompt: string;
  /** api chat: the whole conversation to send (multi-turn); absent: one user message holding `prompt`. */
  messages?: ChatMessage[];
  maxTokens: number;
  ignoreEos: boolean;
  temperature: number;
  stream: boolean;
  /** Ask for the log-probabilities of this many most likely tokens at each output position (absent: none). */
  topLogprobs?: number;
}

/**
 * An engine-specific HTTP request for GenerationParams, and how its stream reports tokens:
 *  - `native-cumulative`: SGLang /generate; each event's meta_info.completion_tokens is cumulative.
 *  - `openai-continuous-usage`: OpenAI SSE with usage on every chunk (continuous_usage_stats).
 *  - `openai-final-usage`: OpenAI SSE; usage only in a final chunk (stream_options.include_usage).
 */
export interface BuiltRequest {
  method: 'POST';
  path: string;
  body: Record<string, unknown>;
  tokenAccounting: 'native-cumulative' | 'openai-continuous-usage' | 'openai-final-usage';
}

/**
 * The POST that counts a text's tokens on the server, shaped so the count equals the `usage.prompt_tokens`
 * the server reports for that text sent as a completions prompt (special tokens such as BOS included or
 * not, as the engine adds them). The answer carries `tokens`, `count` or `input_ids`.
 */
export interface TokenizeRequest {
  path: string;
  body: Record<string, unknown>;
}

/** Minimal HTTP access to the target for adapters (implemented in src/client/target-http.ts). */
export interface TargetHttp {
  readonly baseUrl: string;
  /** GET or POST a path; never throws for HTTP status, only returns it. `error` set on transport failure. */
  request(
    path: string,
    opts?: { method?: 'GET' | 'POST'; body?: unknown; timeoutMs?: number; signal?: AbortSignal },
  ): Promise<HttpDoc>;
}

export interface HttpDoc {
  url: string;
  status: number | null;
  contentType: string | null;
  text: string;
  /** Parsed JSON when the body is JSON (tolerant of bare Infinity/NaN); undefined otherwise. */
  json?: unknown;
  error?: {
    code:
      | 'BG_E_CONNECT'
      | 'BG_E_TOTAL_TIMEOUT'
      | 'BG_E_CROSS_ORIGIN_REDIRECT'
      | 'BG_E_REPLY_TOO_LARGE'
      | 'BG_E_ABORTED';
    message: string;
  };
  elapsedMs: number;
}

/** Speculative-decoding counters scraped from /metrics (cumulative since server start). */
export interface SpecCounters {
  drafts?: number;
  draftTokens?: number;
  acceptedTokens?: number;
  verifySteps?: number;
  /** Server-computed average acceptance length gauge, a labelled fallback only. */
  acceptLengthGauge?: number;
  /** Tokens generated (for counter-delta acceptance length). */
  generationTokens?: number;
  /** Accepted draft tokens by draft position (index 0 = first drafted token), summed over label sets (vLLM). */
  acceptedTokensPerPosition?: number[];
}

export interface LiveReading {
  facts: ConfigFacts;
  /** Raw documents keyed by endpoint path. */
  raw: Record<string, unknown>;
}

export interface LogReading {
  facts: ConfigFacts;
  /** 1-based line numbers where a server start begins (the engine's start marker). */
  startMarkerLines: number[];
  /** Wall time of each start marker when the line carries a timestamp (ISO, local time assumed UTC if no zone). */
  startMarkerTimes: (string | null)[];
  /**
   * 1-based first line belonging to each start (same length as startMarkerLines). Equal to the marker
   * line unless the engine prints part of its start before the marker (SGLang logs its spec v2 and
   * overlap warnings before the server_args line). Judge "the current start" from here.
   */
  startRegionFirstLines?: number[];
  /** 1-based line of the ready line of the last start, if any. */
  readyLine: number | null;
  /** Crash signatures (tracebacks, CUDA errors, watchdog) after the last start. */
  crashes: { line: number; excerpt: string }[];
  /**
   * The last start died: before it was ready (failed-start signature, CUDA OOM, a traceback it never got
   * past), or after it (an engine core, scheduler or draft path that died at its first decodes).
   */
  failedStart?: FailedStart | null;
  /** Speculative-decoding acceptance lines after the last start; null when the log has none. */
  acceptance?: AcceptanceReading | null;
}

export interface FailedStart {
  /** 1-based line of the failure. */
  line: number;
  excerpt: string;
  /** The start had reached its ready line when it died (a crash at its first decodes). */
  afterReady?: boolean;
}

/** One acceptance line read (vLLM `SpecDecoding metrics:`, SGLang `accept len:`, llama.cpp `draft acceptance`). */
export interface AcceptanceSample {
  /** Mean acceptance length including the bonus token (1.00 = nothing accepted); absent when the line does not say it unambiguously. */
  meanLength?: number;
  accepted?: number;
  drafted?: number;
  /** The counts are totals since the server started (vLLM V0, llama.cpp statistics), not per interval: the last line holds the total. */
  cumulative?: boolean;
}

export interface AcceptanceReading {
  lines: number;
  firstLine: number;
  lastLine: number;
  maxMeanLength: number | null;
  /** Summed over the lines that print counts; null when none do. */
  acceptedTokens: number | null;
  draftedTokens: number | null;
  /** Every line shows mean length ≈ 1.00 and (where printed) 0 accepted tokens. */
  neverAccepted: boolean;
  /** The last acceptance line. */
  excerpt: string;
}

/** Where an engine reports speculative acceptance, in its own words, for the evidence a finding quotes. */
export interface AcceptanceSources {
  /** The field of a generation's answer that gives its verify steps, and how they follow from it. */
  verifySteps?: string;
  verifyStepsNote?: string;
  /** The /metrics counters behind tokens / verify steps. */
  counterTokens?: string;
  /** The /metrics counters behind 1 + accepted / drafts. */
  counterAccepted?: string;
}

/** Why no source gave a speculative acceptance figure, and what the user can do (see acceptanceGap). */
export interface AcceptanceGap {
  found: string;
  hint: string;
}

export interface EngineAdapter {
  readonly name: EngineName;
  /** True when the documents a probe read identify this engine (cheap GETs only). */
  detect(http: TargetHttp): Promise<boolean>;
  /** Effective configuration from the live server's endpoints. */
  readLive(http: TargetHttp): Promise<LiveReading>;
  /** Configuration and start markers from a server log's text (handles ANSI codes and hard wraps). */
  readLog(text: string, path: string): LogReading;
  /**
   * Configuration from the server process's argv and environment. `live` (the facts the live endpoints
   * gave, when read first) lets an adapter apply a rule only to the builds it holds for (llama.cpp).
   */
  readProcess(
    argv: string[],
    env: Record<string, string> | null,
    source: string,
    live?: ConfigFacts,
  ): ConfigFacts;
  /** The HTTP request for a generation. */
  requestFor(params: GenerationParams): BuiltRequest;
  /** The tokenize request for `text`; absent → `{model, prompt, add_special_tokens: false}` (SGLang, vLLM). */
  tokenizeRequest?(model: string, text: string): TokenizeRequest;
  /**
   * The /metrics series worth sampling during a level, by meaning: the engine's metric name (first
   * present spelling wins). Absent: the engine exposes no useful /metrics.
   */
  telemetrySeries?: Partial<Record<TelemetryKey, string[]>>;
  /** Speculative counters from a /metrics (Prometheus text) scrape; null when none are exposed. */
  specCounters(metricsText: string): SpecCounters | null;
  /** Where a normalised key could be read when the live endpoints do not expose it (for hints). */
  whereToRead(key: string): string | null;
  /** How this engine's acceptance sources are named in evidence; absent: generic wording. */
  acceptanceSources?: AcceptanceSources;
  /** Why no acceptance figure was found on this server (its build, the fields it lacks); absent: generic. */
  acceptanceGap?(facts: ConfigFacts): AcceptanceGap;
  /** Empties the engine's prefix cache (load.cache: flush); absent when the engine offers no way. */
  flushPrefixCache?(http: TargetHttp): Promise<CacheFlush>;
  /** Matches the command line of this engine's server processes (leftover check); null when unknown. */
  readonly serverCommand: RegExp | null;
  /**
   * Matches the process title this engine gives its worker processes (`VLLM::EngineCore`,
   * `sglang::scheduler_TP0`): a worker outside the checked server's tree is a leftover. Absent: none.
   */
  readonly workerTitle?: RegExp;
}

/** What a level's server telemetry samples (gauges as read; counters as cumulative values). */
export type TelemetryKey =
  | 'running'
  | 'waiting'
  | 'kvCacheUsage'
  | 'prefixCacheHitRate'
  | 'prefixCacheHitTokens'
  | 'prefixCacheQueryTokens'
  | 'preemptions'
  | 'specAcceptedTokens'
  | 'specAcceptLength';
