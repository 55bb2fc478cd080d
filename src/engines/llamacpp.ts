// llama.cpp (llama-server) adapter: OpenAI requests, /tokenize with `content`, /props, /health and /slots
// reads, its /metrics speculative counters, its start-up log (legacy `build:` lines and the 2026
// `0.00.073.302 I srv  ...` format, router mode) and its command-line flags (`-md`, `--spec-type`, ...).
// Facts observed on a real server are recorded in fixtures/llamacpp/README.md.

import { redactDeep } from '../core/redact.js';
import { flagValue, parseFlagArgv } from './argv.js';
import { isRecord, setFact, setFactIfAbsent, setNativeFacts } from './facts.js';
import {
  type AcceptanceParser,
  type LogLine,
  linesAfterLastStart,
  logicalLines,
  logReadingFromStarts,
  startIndices,
} from './logtext.js';
import { openAiRequest } from './openai-request.js';
import { getJsonObject, readModelEntries } from './probe.js';
import { parsePrometheusText, specDecodeCounters, sumMetric } from './prometheus.js';
import type {
  BuiltRequest,
  ConfigFacts,
  EngineAdapter,
  GenerationParams,
  LiveReading,
  LogReading,
  SpecCounters,
  TargetHttp,
  TokenizeRequest,
} from './types.js';

/** The 2026 line prefix: `0.00.073.302 I ` (elapsed minutes.seconds.ms.µs, level letter), then a module tag. */
const PREFIX_RE = /^\d+\.\d{2}\.\d{3}\.\d{3} [A-Z] /;
/** Module tags after the prefix (`srv  `, `cmn  `, `slot `, `spec `), padded to width. */
const MODULE_RE = /^(?:srv|cmn|slot|spec|mtmd|que|res|log) +/;

/**
 * The first line of a start. Before 2026: `build: 4567 (abc1234) with cc ...`. From 2026 the build line
 * is `common_params_print_info: build N (commit) ...` at verbosity 4 only; the verbosity line is always
 * printed and is the first line at the default verbosity.
 */
const START_RE = /^build: \d+ \(|^common_param: common_params_print_info: (?:build \d+ \(|verbosity = )/;
const BUILD_RE = /(?:^build:|common_params_print_info: build) (\d+) \(([^)]*)\)/;
const READY_RE =
  /(?:llama_server|main): (?:server is )?listening on http|server is listening on|main: model loaded/;
const N_CTX_RE = /llama_context: n_ctx(?:_per_seq|_seq)? += (\d+)/;
const SLOTS_RE = /load_model: initializing, n_slots = (\d+), n_ctx_slot = (\d+)/;
const MODEL_RE = /load_model: loading model '([^']*)'/;
const DRAFT_RE = /loading draft model '([^']*)'/;
const NO_SPEC_RE = /no implementations specified for speculative decoding/;
const ROUTER_RE = /starting server in router mode/;
const LOAD_FAIL_RE =
  /exiting due to model loading error|load_model: failed to load model|error loading model:/;
/** Per-request acceptance, printed when the request drafted at least one token. */
const ACCEPT_RE =
  /draft acceptance = ([\d.]+) \(\s*(\d+) accepted \/\s*(\d+) generated\), mean len =\s*([\d.]+)/;

/** Every spelling of a flag, mapped to the canonical long name (llama-server --help, commit 3f545becc). */
const FLAG_ALIASES: Record<string, string> = {
  '-m': '--model',
  '-c': '--ctx-size',
  '-np': '--parallel',
  '-a': '--alias',
  '-md': '--spec-draft-model',
  '--model-draft': '--spec-draft-model',
  '-ngl': '--n-gpu-layers',
  '--gpu-layers': '--n-gpu-layers',
  '-ngld': '--spec-draft-ngl',
  '--gpu-layers-draft': '--spec-draft-ngl',
  '--n-gpu-layers-draft': '--spec-draft-ngl',
  '-t': '--threads',
  '-td': '--spec-draft-threads',
  '--threads-draft': '--spec-draft-threads',
  '-b': '--batch-size',
  '-ub': '--ubatch-size',
  '-fa': '--flash-attn',
  '-hf': '--hf-repo',
  '-hfr': '--hf-repo',
  '-hfd': '--spec-draft-hf',
  '-hfrd': '--spec-draft-hf',
  '--hf-repo-draft': '--spec-draft-hf',
  '--draft-p-min': '--spec-draft-p-min',
  '-lv': '--verbosity',
  '--log-verbosity': '--verbosity',
  // removed in 2026 (the server refuses them), read so an old command line still says what it meant
  '--draft': '--spec-draft-n-max',
  '--draft-n': '--spec-draft-n-max',
  '--draft-max': '--spec-draft-n-max',
  '--draft-min': '--spec-draft-n-min',
  '--draft-n-min': '--spec-draft-n-min',
};

/** Environment variables llama-server reads in place of flags. */
const ENV_FLAGS: Record<string, string> = {
  LLAMA_ARG_MODEL: 'model',
  LLAMA_ARG_CTX_SIZE: 'ctx_size',
  LLAMA_ARG_N_PARALLEL: 'parallel',
  LLAMA_ARG_ALIAS: 'alias',
  LLAMA_ARG_SPEC_DRAFT_MODEL: 'spec_draft_model',
  LLAMA_ARG_SPEC_TYPE: 'spec_type',
  LLAMA_ARG_SPEC_DRAFT_N_MAX: 'spec_draft_n_max',
};

/** `--spec-draft-n-max` default at commit 3f545becc. */
const DEFAULT_DRAFT_N_MAX = 3;

export function llamacppRequestFor(params: GenerationParams): BuiltRequest {
  // llama-server reads `ignore_eos` from the request body of its OpenAI-compatible endpoints too.
  return openAiRequest('llamacpp', params, { continuousUsage: false, ignoreEosField: true });
}

/**
 * llama-server's /tokenize reads `content` (a `prompt` field is ignored and answers no tokens). With
 * `add_special: true` the count includes the BOS token the completions endpoint adds, so it equals the
 * `usage.prompt_tokens` the server reports for the same text.
 */
export function llamacppTokenizeRequest(_model: string, text: string): TokenizeRequest {
  return { path: '/tokenize', body: { content: text, add_special: true } };
}

/** Canonical speculative type list (`DRAFT-SIMPLE`, `NGRAM-MOD,DRAFT-SIMPLE`: normalised to upper case like every engine's algorithm); null when none. */
function specTypes(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const types = raw
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '' && t !== 'none');
  return types.length > 0 ? types.join(',') : null;
}

function readSlots(json: unknown[], facts: ConfigFacts, raw: Record<string, unknown>): void {
  const src = 'GET /slots';
  const slots = json.filter(isRecord);
  raw['/slots'] = slots.map((s) => ({
    id: s.id,
    n_ctx: s.n_ctx,
    speculative: s.speculative,
    is_processing: s.is_processing,
  }));
  setFactIfAbsent(facts, 'max_running_requests', json.length, src);
  const nCtx = slots.map((s) => s.n_ctx).find((v) => typeof v === 'number');
  setFactIfAbsent(facts, 'context_length', nCtx, src);
  const spec = slots.map((s) => s.speculative).filter((v) => typeof v === 'boolean');
  if (spec.length === slots.length && spec.length > 0) {
    const on = spec.every((v) => v === true);
    const off = spec.every((v) => v === false);
    if (on || off) setFact(facts, 'llamacpp.speculative', on, src);
    // `speculative: false` on every slot means no speculation runs, whatever /props or -md say
    if (off)
      setFactIfAbsent(facts, 'speculative.algorithm', null, `${src} (speculative: false on every slot)`);
  }
}

async function readLive(http: TargetHttp): Promise<LiveReading> {
  const raw: Record<string, unknown> = {};
  const facts: ConfigFacts = {};
  const props = await getJsonObject(http, '/props');
  if (props.json) {
    const p = props.json;
    const src = 'GET /props';
    raw['/props'] = redactDeep({
      ...p,
      chat_template: p.chat_template === undefined ? undefined : '<omitted>',
    });
    setFact(facts, 'engine', 'llamacpp', src);
    setFact(facts, 'engine_version', p.build_info, src);
    if (p.role === 'router') setFact(facts, 'llamacpp.role', 'router', src);
    else {
      setFact(facts, 'model', p.model_path, src);
      if (typeof p.model_alias === 'string' && p.model_alias !== '')
        setFact(facts, 'served_model_name', p.model_alias, src);
      setFact(facts, 'max_running_requests', p.total_slots, src);
    }
    const gen = isRecord(p.default_generation_settings) ? p.default_generation_settings : {};
    if (typeof gen.n_ctx === 'number' && gen.n_ctx > 0) setFact(facts, 'context_length', gen.n_ctx, src);
    const native: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(p))
      if (k !== 'chat_template' && k !== 'default_generation_settings') native[k] = v;
    setNativeFacts(facts, 'llamacpp', redactDeep(native), src);
    if (isRecord(gen.params)) {
      // params["speculative.types"] reads "none" even while the server speculates: never a fact
      const params = Object.fromEntries(
        Object.entries(gen.params).filter(([k]) => k !== 'speculative.types'),
      );
      setNativeFacts(facts, 'llamacpp.params', params, src);
    }
  }
  const health = await getJsonObject(http, '/health');
  if (health.doc.status !== null) {
    raw['/health'] = health.json ?? { status: health.doc.status };
    setFact(facts, 'llamacpp.health_status', health.doc.status, 'GET /health');
  }
  const slots = await http.request('/slots', { method: 'GET' });
  if (slots.status === 200 && Array.isArray(slots.json)) readSlots(slots.json, facts, raw);
  const first = (await readModelEntries(http, raw))?.[0];
  if (first) setFactIfAbsent(facts, 'served_model_name', first.id, 'GET /v1/models');
  return { facts, raw };
}

/** A line without its 2026 timestamp/level prefix and module tag; legacy lines unchanged. */
export function llamacppLineBody(text: string): string {
  const m = PREFIX_RE.exec(text);
  return m ? text.slice(m[0].length).replace(MODULE_RE, '') : text;
}

/**
 * Start-marker indices. At verbosity 4 the build line is directly followed by the verbosity line: one
 * start, marked at the build line.
 */
function startMarkers(lines: LogLine[]): number[] {
  const raw = startIndices(lines, (t) => START_RE.test(llamacppLineBody(t)));
  return raw.filter(
    (idx, k) => !(k > 0 && raw[k - 1] === idx - 1 && /verbosity = /.test(llamacppLineBody(lines[idx].text))),
  );
}

/** A per-request `draft acceptance = … mean len = …` line as an acceptance sample (the shared log rule). */
export const parseLlamacppAcceptanceLine: AcceptanceParser = (text) => {
  const m = ACCEPT_RE.exec(text);
  if (!m) return null;
  return { accepted: Number(m[2]), drafted: Number(m[3]), meanLength: Number(m[4]) };
};

function readAcceptanceLines(current: LogLine[], path: string, facts: ConfigFacts): void {
  let accepted = 0;
  let generated = 0;
  let requests = 0;
  let lastLine = 0;
  for (const l of current) {
    const m = ACCEPT_RE.exec(l.text);
    if (!m) continue;
    accepted += Number(m[2]);
    generated += Number(m[3]);
    requests++;
    lastLine = l.line;
  }
  if (requests === 0) return;
  const src = `${path} (${requests} "draft acceptance" line(s), last at line ${lastLine})`;
  setFact(facts, 'llamacpp.log_draft_requests', requests, src);
  setFact(facts, 'llamacpp.log_draft_accepted_tokens', accepted, src);
  setFact(facts, 'llamacpp.log_draft_generated_tokens', generated, src);
  setFact(facts, 'llamacpp.log_draft_acceptance_rate', generated > 0 ? accepted / generated : null, src);
}

function readLog(text: string, path: string): LogReading {
  const lines = logicalLines(text);
  const starts = startMarkers(lines);
  const facts: ConfigFacts = {};
  if (starts.length > 0) {
    const first = starts[starts.length - 1];
    setFact(facts, 'engine', 'llamacpp', `${path}:${lines[first].line}`);
    const current = linesAfterLastStart(lines, starts);
    for (const l of [lines[first], ...current]) {
      const body = llamacppLineBody(l.text);
      const at = `${path}:${l.line}`;
      const build = BUILD_RE.exec(body);
      if (build) setFactIfAbsent(facts, 'engine_version', `b${build[1]}-${build[2]}`, at);
      const model = MODEL_RE.exec(body);
      if (model) setFactIfAbsent(facts, 'model', model[1], at);
      const slots = SLOTS_RE.exec(body);
      if (slots) {
        setFactIfAbsent(facts, 'max_running_requests', Number(slots[1]), at);
        setFactIfAbsent(facts, 'context_length', Number(slots[2]), at);
      }
      const nCtx = N_CTX_RE.exec(body);
      if (nCtx) setFactIfAbsent(facts, 'llamacpp.n_ctx', Number(nCtx[1]), at);
      const draft = DRAFT_RE.exec(body);
      if (draft) setFactIfAbsent(facts, 'speculative.draft_model', draft[1], at);
      if (NO_SPEC_RE.test(body)) setFactIfAbsent(facts, 'speculative.algorithm', null, at);
      if (ROUTER_RE.test(body)) setFactIfAbsent(facts, 'llamacpp.role', 'router', at);
    }
    readAcceptanceLines(current, path, facts);
  }
  const reading = logReadingFromStarts(
    lines,
    starts,
    (t) => READY_RE.test(llamacppLineBody(t)),
    facts,
    starts,
    {
      acceptance: parseLlamacppAcceptanceLine,
    },
  );
  // a model that fails to load ends the process without a traceback: report it as the start's failure
  const failed = linesAfterLastStart(lines, starts).find((l) => LOAD_FAIL_RE.test(l.text));
  if (failed && reading.readyLine === null)
    reading.crashes.push({ line: failed.line, excerpt: llamacppLineBody(failed.text).trim().slice(0, 300) });
  return reading;
}

function readProcess(argv: string[], env: Record<string, string> | null, source: string): ConfigFacts {
  const expanded = argv.flatMap((t) => {
    const eq = t.indexOf('=');
    const name = eq > 0 ? t.slice(0, eq) : t;
    const alias = FLAG_ALIASES[name];
    if (!alias) return [t];
    return eq > 0 ? [`${alias}=${t.slice(eq + 1)}`] : [alias];
  });
  const { flags } = parseFlagArgv(expanded, 1);
  const facts: ConfigFacts = {};
  setFact(facts, 'engine', 'llamacpp', source);
  const fromEnv: Record<string, string> = {};
  for (const [k, name] of Object.entries(ENV_FLAGS))
    if (env && env[k] !== undefined && !(name in flags)) fromEnv[name] = env[k];
  const v = (k: string) =>
    k in flags ? flagValue(flags[k]) : k in fromEnv ? flagValue(fromEnv[k]) : undefined;
  const at = (k: string) => (k in fromEnv ? `${source} (environment)` : source);
  setFact(facts, 'model', v('model') ?? v('hf_repo'), at('model'));
  setFact(facts, 'served_model_name', v('alias'), at('alias'));
  setFact(facts, 'max_running_requests', v('parallel'), at('parallel'));
  const nCtx = v('ctx_size');
  // -c is the whole context, split over the slots (n_ctx_slot = ctx_size / parallel, observed 2048 / 4 = 512)
  const parallel = v('parallel');
  if (typeof nCtx === 'number' && nCtx > 0 && typeof parallel === 'number' && parallel > 0)
    setFact(
      facts,
      'context_length',
      Math.floor(nCtx / parallel),
      `${at('ctx_size')} (-c / -np per slot)`,
      true,
    );
  const draftModel = v('spec_draft_model') ?? v('spec_draft_hf');
  setFact(facts, 'speculative.draft_model', draftModel, at('spec_draft_model'));
  const types = specTypes(v('spec_type')) ?? (v('spec_default') === true ? 'ngram-mod' : null);
  if (types !== null) {
    setFact(
      facts,
      'speculative.algorithm',
      types,
      v('spec_type') !== undefined ? at('spec_type') : `${source} (--spec-default)`,
    );
    if (types.split(',').some((t) => t.startsWith('draft-'))) {
      const nMax = v('spec_draft_n_max');
      if (nMax !== undefined) setFact(facts, 'speculative.num_steps', nMax, at('spec_draft_n_max'));
      else
        setFact(
          facts,
          'speculative.num_steps',
          DEFAULT_DRAFT_N_MAX,
          `${source} (--spec-draft-n-max default)`,
          true,
        );
    }
  } else if (/llama-server$/.test(argv[0] ?? '')) {
    // llama-server without --spec-type: nothing speculates, even with a draft model loaded by -md
    const why =
      draftModel !== undefined
        ? '-md without --spec-type loads a draft model but does not speculate'
        : 'no --spec-type or draft model';
    setFact(facts, 'speculative.algorithm', null, `${source} (${why})`, true);
  }
  const native: Record<string, unknown> = {};
  for (const k of Object.keys(flags)) native[k] = v(k);
  for (const k of Object.keys(fromEnv)) native[k] = v(k);
  setNativeFacts(facts, 'llamacpp', redactDeep(native), source);
  return facts;
}

/** Counters of `llamacpp:spec_decode_*` (present, zero, on every server started with --metrics). */
export function llamacppSpecCounters(metricsText: string): SpecCounters | null {
  const scrape = parsePrometheusText(metricsText);
  const spec = specDecodeCounters(scrape, 'llamacpp');
  if (spec === null) return null;
  // drafts_total is "Total speculative decoding verification steps": each verifies one draft
  const out: SpecCounters = spec.drafts !== undefined ? { ...spec, verifySteps: spec.drafts } : { ...spec };
  const gen = sumMetric(scrape, 'llamacpp', 'tokens_predicted_total');
  if (gen !== undefined) out.generationTokens = gen;
  return out;
}

function whereToRead(key: string): string | null {
  if (key === 'context_length')
    return 'GET /slots field n_ctx (per slot), GET /props default_generation_settings.n_ctx, or the log line "load_model: initializing, n_slots = N, n_ctx_slot = N"';
  if (key === 'max_running_requests')
    return 'GET /props field total_slots, or -np/--parallel on the command line';
  if (key === 'engine_version')
    return 'GET /props field build_info, or the log line "common_params_print_info: build N (commit)" (printed with -lv 4)';
  if (key === 'speculative.algorithm')
    return 'the llama-server command line (--spec-type; -md alone does not speculate) or GET /slots field speculative; /props speculative.types is not reliable';
  if (key.startsWith('speculative.'))
    return 'the llama-server command line (-md/--spec-draft-model, --spec-type, --spec-draft-n-max)';
  return null;
}

export const llamacppAdapter: EngineAdapter = {
  name: 'llamacpp',
  async detect(http) {
    const { json } = await getJsonObject(http, '/props');
    return (
      json !== null &&
      ('default_generation_settings' in json || 'total_slots' in json || json.role === 'router')
    );
  },
  readLive,
  readLog,
  readProcess,
  requestFor: llamacppRequestFor,
  tokenizeRequest: llamacppTokenizeRequest,
  specCounters: llamacppSpecCounters,
  telemetrySeries: {
    running: ['llamacpp:requests_processing'],
    waiting: ['llamacpp:requests_deferred'],
    kvCacheUsage: ['llamacpp:kv_cache_usage_ratio'],
  },
  whereToRead,
  serverCommand: /\bllama-server\b/,
};
