// vLLM adapter: OpenAI requests with continuous usage, /version + /v1/models + /metrics (+ dev-mode
// /server_info) reads, `non-default args:` and engine-config log lines, and vllm:spec_decode_* counters.

import { redactDeep } from '../core/redact.js';
import { describeAbbreviations, flagValue, indexAfter, readServerArgv } from './argv.js';
import { addMissingFacts, isRecord, setFact, setFactIfAbsent, setNativeFacts } from './facts.js';
import { type AcceptanceParser, type LogLine, logicalLines, logReadingFromStarts } from './logtext.js';
import { openAiRequest } from './openai-request.js';
import { getJsonObject, noteTruncatedBody, readModelEntries } from './probe.js';
import { findSamples, parsePrometheusText, specDecodeCounters, sumMetric } from './prometheus.js';
import { type PyObject, parsePyKwargs, parsePyValue } from './pyrepr.js';
import type {
  BuiltRequest,
  ConfigFacts,
  EngineAdapter,
  GenerationParams,
  LiveReading,
  LogReading,
  SpecCounters,
  TargetHttp,
} from './types.js';
import { VLLM_FLAGS } from './vllm-flags.js';

/**
 * The start's version line: `vLLM API server version X` (before 0.11), `vLLM server version X, serving
 * model M`, and the start-up logo's `█  version X` line (current releases, entrypoints/utils.py).
 */
const VERSION_LINE_RE = /(?:vLLM API server version|vLLM server version|█\s+version)\s+([^\s,]+)/;
const NON_DEFAULT_RE = /non-default args: /;
const ENGINE_CONFIG_RE = /Initializing a V\d LLM engine \(v([^)]*)\) with config: /;
export const VLLM_READY_LINE = 'Application startup complete.';
/** Lines vLLM prints when a start dies (the engine core or a worker process could not start). */
const VLLM_FAILED_START: readonly RegExp[] = [
  /WorkerProc failed to start/,
  /WorkerProc initialization failed/,
  /EngineCore failed to start/,
  /Engine core initialization failed/,
];

const num = (re: RegExp, text: string): number | undefined => {
  const m = re.exec(text);
  return m ? Number(m[1]) : undefined;
};

/**
 * One `SpecDecoding metrics:` line: the current form (`Mean acceptance length: 1.00, ... Accepted: 0
 * tokens, Drafted: 120 tokens, ...`) and the older one (`Number of accepted tokens: 0, Number of draft
 * tokens: 120`).
 */
export const parseVllmAcceptanceLine: AcceptanceParser = (text) => {
  const at = text.indexOf('SpecDecoding metrics:');
  if (at < 0) return null;
  const body = text.slice(at, at + 2000);
  const sample = {
    meanLength: num(/Mean acceptance length: (\d+(?:\.\d+)?)/, body),
    accepted: num(/Accepted: (\d+) tokens/, body) ?? num(/Number of accepted tokens: (\d+)/, body),
    drafted: num(/Drafted: (\d+) tokens/, body) ?? num(/Number of draft tokens: (\d+)/, body),
  };
  return Object.values(sample).some((v) => v !== undefined) ? sample : null;
};

/** Short argv spellings vLLM accepts → long flag names. */
const SHORT_FLAGS: Record<string, string> = {
  '-tp': '--tensor-parallel-size',
  '-pp': '--pipeline-parallel-size',
  '-dp': '--data-parallel-size',
  '-q': '--quantization',
};

export function vllmRequestFor(params: GenerationParams): BuiltRequest {
  return openAiRequest('vllm', params, { continuousUsage: true, ignoreEosField: true });
}

/** Strips `torch.` so `torch.bfloat16` (engine config) and `bfloat16` (flags) compare equal. */
function normaliseDtype(v: unknown): unknown {
  return typeof v === 'string' ? v.replace(/^torch\./, '') : v;
}

function firstOf(v: unknown): unknown {
  return Array.isArray(v) ? v[0] : v;
}

/** A speculative config given as a dict, a `SpeculativeConfig(...)` repr, or JSON text. */
function specConfigObject(v: unknown): Record<string, unknown> | null {
  if (isRecord(v)) return v;
  if (typeof v === 'string' && v.trim().startsWith('{')) {
    try {
      const parsed = JSON.parse(v);
      if (isRecord(parsed)) return parsed;
    } catch {
      const py = parsePyValue(v).value;
      if (isRecord(py)) return py;
    }
  }
  return null;
}

/**
 * Normalised + `vllm.`-prefixed facts from vLLM argument names (non-default args, flags, or the
 * engine config line, which spells some fields differently: max_seq_len, served_model_name).
 */
export function factsFromVllmArgs(args: Record<string, unknown>, source: string): ConfigFacts {
  const facts: ConfigFacts = {};
  setFact(facts, 'engine', 'vllm', source);
  setFact(facts, 'model', args.model ?? args.model_tag, source);
  setFact(facts, 'served_model_name', firstOf(args.served_model_name), source);
  setFact(facts, 'tp_size', args.tensor_parallel_size, source);
  setFact(facts, 'pp_size', args.pipeline_parallel_size, source);
  setFact(facts, 'dp_size', args.data_parallel_size, source);
  setFact(facts, 'dtype', normaliseDtype(args.dtype), source);
  setFact(facts, 'quantization', args.quantization, source);
  setFact(facts, 'max_running_requests', args.max_num_seqs, source);
  setFact(facts, 'context_length', args.max_model_len ?? args.max_seq_len, source);
  if ('speculative_config' in args) {
    const spec = specConfigObject(args.speculative_config);
    if (args.speculative_config === null) setFact(facts, 'speculative.algorithm', null, source);
    else if (spec) {
      setFact(facts, 'speculative.algorithm', spec.method, source);
      setFact(facts, 'speculative.draft_model', spec.model, source);
      // vLLM drafts a chain: num_speculative_tokens is both the draft depth and the tokens drafted per step.
      const drafted = spec.num_speculative_tokens ?? spec.num_spec_tokens;
      setFact(facts, 'speculative.num_steps', drafted, source);
      setFact(facts, 'speculative.num_draft_tokens', drafted, source);
      setNativeFacts(facts, 'vllm.speculative_config', spec, source);
    }
  }
  const native: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args))
    if (k !== 'speculative_config' && !k.startsWith('__')) native[k] = v;
  setNativeFacts(facts, 'vllm', redactDeep(native), source);
  return facts;
}

/** Facts from `vllm_config` of dev-mode /server_info: the config repr text, or the JSON dump. */
function factsFromVllmConfig(config: unknown, source: string): ConfigFacts {
  if (typeof config === 'string') return factsFromVllmArgs(parsePyKwargs(config).value, source);
  if (!isRecord(config)) return {};
  const model = isRecord(config.model_config) ? config.model_config : {};
  const parallel = isRecord(config.parallel_config) ? config.parallel_config : {};
  const scheduler = isRecord(config.scheduler_config) ? config.scheduler_config : {};
  return factsFromVllmArgs(
    {
      model: model.model,
      served_model_name: model.served_model_name,
      dtype: model.dtype,
      quantization: model.quantization,
      max_model_len: model.max_model_len,
      tensor_parallel_size: parallel.tensor_parallel_size,
      pipeline_parallel_size: parallel.pipeline_parallel_size,
      data_parallel_size: parallel.data_parallel_size,
      max_num_seqs: scheduler.max_num_seqs,
      speculative_config: config.speculative_config,
    },
    source,
  );
}

async function readLive(http: TargetHttp): Promise<LiveReading> {
  const raw: Record<string, unknown> = {};
  const facts: ConfigFacts = {};
  const version = await getJsonObject(http, '/version');
  if (version.json) {
    raw['/version'] = version.json;
    setFact(facts, 'engine', 'vllm', 'GET /version');
    setFact(facts, 'engine_version', version.json.version, 'GET /version');
  }
  const first = (await readModelEntries(http, raw))?.[0];
  if (first) {
    setFact(facts, 'served_model_name', first.id, 'GET /v1/models');
    setFact(facts, 'model', first.root, 'GET /v1/models');
    setFact(facts, 'context_length', first.max_model_len, 'GET /v1/models');
    if (first.owned_by === 'vllm') setFactIfAbsent(facts, 'engine', 'vllm', 'GET /v1/models');
  }
  const metrics = await http.request('/metrics', { method: 'GET' });
  if (metrics.status === 200 && metrics.text) {
    const scrape = parsePrometheusText(metrics.text);
    const info = findSamples(scrape, 'vllm', 'cache_config_info');
    if (info.length > 0) {
      raw['/metrics vllm:cache_config_info'] = info[0].labels;
      for (const [k, v] of Object.entries(info[0].labels)) {
        setFact(facts, `vllm.cache_config.${k}`, flagValue(v), 'GET /metrics vllm:cache_config_info');
      }
    }
  }
  // Only served when VLLM_SERVER_DEV_MODE=1; a 404 is normal.
  const serverInfo = await getJsonObject(http, '/server_info');
  if (serverInfo.json && 'vllm_config' in serverInfo.json) {
    raw['/server_info'] = redactDeep(serverInfo.json);
    addMissingFacts(facts, factsFromVllmConfig(serverInfo.json.vllm_config, 'GET /server_info'));
  }
  if (serverInfo.json) noteTruncatedBody(facts, 'vllm', '/server_info', serverInfo.truncated);
  return { facts, raw };
}

type MarkerKind = 'version' | 'args' | 'engine';

function readLog(text: string, path: string): LogReading {
  const lines = logicalLines(text);
  // A start is a "vLLM API server version" line, or a "non-default args:" line not directly
  // following one (older versions / other entry points print only the latter).
  const starts: number[] = [];
  let lastKind: MarkerKind | null = null;
  let argsSeen = false;
  lines.forEach((l, i) => {
    if (VERSION_LINE_RE.test(l.text)) {
      starts.push(i);
      lastKind = 'version';
      argsSeen = false;
    } else if (NON_DEFAULT_RE.test(l.text)) {
      if (!(lastKind === 'version' && !argsSeen)) starts.push(i);
      lastKind = 'args';
      argsSeen = true;
    } else if (ENGINE_CONFIG_RE.test(l.text) && starts.length === 0) {
      starts.push(i);
      lastKind = 'engine';
    }
  });
  const lastStart = starts.length > 0 ? starts[starts.length - 1] : -1;
  const facts = lastStart >= 0 ? factsFromLogRegion(lines.slice(lastStart), path) : {};
  return logReadingFromStarts(lines, starts, (t) => t.includes(VLLM_READY_LINE), facts, starts, {
    failedStart: VLLM_FAILED_START,
    acceptance: parseVllmAcceptanceLine,
  });
}

/** The engine config line (effective values) wins; non-default args fill in the rest. */
function factsFromLogRegion(region: LogLine[], path: string): ConfigFacts {
  const facts: ConfigFacts = {};
  const engineLine = region.find((l) => ENGINE_CONFIG_RE.test(l.text));
  if (engineLine) {
    const m = ENGINE_CONFIG_RE.exec(engineLine.text)!;
    const source = `${path}:${engineLine.line}`;
    const parsed = parsePyKwargs(engineLine.text, m.index + m[0].length);
    addMissingFacts(facts, factsFromVllmArgs(parsed.value, source));
    setFact(facts, 'engine_version', m[1], source);
  }
  const argsLine = region.find((l) => NON_DEFAULT_RE.test(l.text));
  if (argsLine) {
    const at = argsLine.text.search(NON_DEFAULT_RE) + 'non-default args: '.length;
    const parsed = parsePyValue(argsLine.text, at);
    const source = `${path}:${argsLine.line}`;
    if (isRecord(parsed.value)) addMissingFacts(facts, factsFromVllmArgs(parsed.value as PyObject, source));
    if (!parsed.complete) setFact(facts, 'vllm.non_default_args_truncated', true, source);
  }
  const versionLine = region.find((l) => VERSION_LINE_RE.test(l.text));
  if (versionLine) {
    setFactIfAbsent(
      facts,
      'engine_version',
      VERSION_LINE_RE.exec(versionLine.text)![1],
      `${path}:${versionLine.line}`,
    );
  }
  return facts;
}

function readProcess(argv: string[], env: Record<string, string> | null, source: string): ConfigFacts {
  const expanded = argv.map((t) => SHORT_FLAGS[t] ?? t);
  const serveAt = expanded.indexOf('serve');
  const start =
    serveAt >= 0 && /vllm$/.test(expanded[serveAt - 1] ?? 'vllm')
      ? serveAt + 1
      : indexAfter(expanded, (t) =>
          /vllm\.entrypoints\.openai\.api_server|vllm\.entrypoints\.api_server/.test(t),
        );
  const { args, positionals, abbreviations } = readServerArgv(expanded, start, VLLM_FLAGS);
  // Pre-0.8 spellings: --speculative-model / --num-speculative-tokens instead of --speculative-config.
  if (!('speculative_config' in args) && ('speculative_model' in args || 'num_speculative_tokens' in args)) {
    args.speculative_config = {
      method: args.speculative_method ?? undefined,
      model: args.speculative_model,
      num_speculative_tokens: args.num_speculative_tokens,
    };
  }
  if (!('model' in args) && positionals.length > 0 && serveAt >= 0) args.model = positionals[0];
  const facts = factsFromVllmArgs(args, source);
  if (!('speculative.algorithm' in facts) && argv.length > 0) {
    setFact(facts, 'speculative.algorithm', null, `${source} (no --speculative-config flag)`, true);
  }
  if (!('served_model_name' in facts) && typeof args.model === 'string') {
    setFact(facts, 'served_model_name', args.model, `${source} (defaults to the model)`, true);
  }
  if (abbreviations.length > 0) {
    const text = describeAbbreviations(abbreviations);
    setFact(facts, 'vllm.abbreviated_flags', text, `${source} (argparse unique-prefix abbreviations)`);
  }
  if (env?.VLLM_SERVER_DEV_MODE !== undefined) {
    setFact(facts, 'vllm.env.VLLM_SERVER_DEV_MODE', env.VLLM_SERVER_DEV_MODE, `${source} environment`);
  }
  return facts;
}

export function vllmSpecCounters(metricsText: string): SpecCounters | null {
  const scrape = parsePrometheusText(metricsText);
  const spec = specDecodeCounters(scrape, 'vllm');
  if (spec === null) return null;
  // Each draft is verified in one target forward pass: verify steps = drafts.
  const out: SpecCounters = spec.drafts !== undefined ? { ...spec, verifySteps: spec.drafts } : { ...spec };
  const gen = sumMetric(scrape, 'vllm', 'generation_tokens_total');
  if (gen !== undefined) out.generationTokens = gen;
  return out;
}

const WHERE_TO_READ: Record<string, string> = {
  max_running_requests:
    "--max-num-seqs on the server command line, the log's 'non-default args:' line, or GET /server_info (VLLM_SERVER_DEV_MODE=1)",
  engine_version: "GET /version, or the log line 'vLLM API server version ...'",
  context_length: 'GET /v1/models field max_model_len',
  overlap_schedule:
    "vLLM has no overlap-schedule setting; its nearest equivalent is async scheduling ('Asynchronous scheduling is enabled.' in the start-up log)",
  'speculative.spec_v2': 'spec v2 is an SGLang setting; vLLM has no equivalent',
};

function whereToRead(key: string): string | null {
  if (key in WHERE_TO_READ) return WHERE_TO_READ[key];
  if (key.startsWith('speculative.')) {
    return "--speculative-config on the server command line, or the log's 'Initializing a V1 LLM engine ... speculative_config=...' line";
  }
  if (key.startsWith('vllm.') || key.endsWith('_size') || key === 'dtype' || key === 'quantization') {
    return "the log's 'non-default args:' and 'Initializing a V1 LLM engine ... with config:' lines, the server command line, or GET /server_info (VLLM_SERVER_DEV_MODE=1)";
  }
  return null;
}

export const vllmAdapter: EngineAdapter = {
  name: 'vllm',
  async detect(http) {
    const { json } = await getJsonObject(http, '/version');
    return json !== null && typeof json.version === 'string' && !('model_path' in json);
  },
  readLive,
  readLog,
  readProcess,
  requestFor: vllmRequestFor,
  specCounters: vllmSpecCounters,
  telemetrySeries: {
    running: ['vllm:num_requests_running'],
    waiting: ['vllm:num_requests_waiting'],
    kvCacheUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
    // v1 counters in tokens; `gpu_prefix_cache_*` are the deprecated names of older releases
    prefixCacheHitTokens: [
      'vllm:prefix_cache_hits_total',
      'vllm:prefix_cache_hits',
      'vllm:gpu_prefix_cache_hits_total',
    ],
    prefixCacheQueryTokens: [
      'vllm:prefix_cache_queries_total',
      'vllm:prefix_cache_queries',
      'vllm:gpu_prefix_cache_queries_total',
    ],
    preemptions: ['vllm:num_preemptions_total', 'vllm:num_preemptions'],
    specAcceptedTokens: ['vllm:spec_decode_num_accepted_tokens_total'],
  },
  whereToRead,
  serverCommand: /vllm\.entrypoints|vllm serve/,
};
