// SGLang adapter: native /generate requests, server_info / model_info reads, the
// server_args=ServerArgs(...) log line, spec v2 evidence, and sglang: Prometheus counters.

import { redactDeep } from '../core/redact.js';
import { describeAbbreviations, envTruthy, indexAfter, readServerArgv } from './argv.js';
import { asBool, isRecord, setFact, setFactIfAbsent, setNativeFacts } from './facts.js';
import {
  type AcceptanceParser,
  logicalLines,
  logReadingFromStarts,
  startIndices,
  startRegionFirst,
} from './logtext.js';
import { openAiRequest } from './openai-request.js';
import { getFirstJsonObject, getJsonObject, noteTruncatedBody, readModelEntries } from './probe.js';
import { parsePrometheusText, sumMetric } from './prometheus.js';
import { parsePyKwargs } from './pyrepr.js';
import { SGLANG_FLAGS } from './sglang-flags.js';
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

export const SGLANG_START_MARKER = 'server_args=ServerArgs(';
export const SGLANG_READY_LINE = 'The server is fired up and ready to roll!';
const SPEC_V2_ON_RE = /Spec v2 is enabled/;
/** Lines that can only come from an earlier, running (or crashed) server. */
const EARLIER_RUN_RE =
  /The server is fired up and ready to roll!|Decode batch|Prefill batch|Traceback \(most recent call last\)|Received sigquit|Uvicorn running on|"(?:GET|POST) \//;

function isEarlierRunLine(text: string): boolean {
  return EARLIER_RUN_RE.test(text);
}
const OVERLAP_OFF_RE = /Overlap scheduler is disabled/;
/** Lines SGLang prints when a start dies: a subprocess (scheduler, detokenizer, DP controller) raised. */
const SGLANG_FAILED_START: readonly RegExp[] = [
  /(?:Scheduler|TpModelWorker|DataParallelController|Detokenizer\w*|TokenizerManager) hit an exception/,
  /Received sigquit from a child process/,
];

/** A `Decode batch` line's `accept len: 2.80` (printed only under speculative decoding). */
export const parseSglangAcceptanceLine: AcceptanceParser = (text) => {
  if (!text.includes('Decode batch')) return null;
  const m = /\baccept len: (\d+(?:\.\d+)?)/.exec(text);
  return m ? { meanLength: Number(m[1]) } : null;
};
/** Algorithms spec v2 applies to (NEXTN is renamed to EAGLE by SGLang itself). */
const SPEC_V2_ALGORITHMS = new Set(['EAGLE', 'EAGLE3', 'STANDALONE', 'NEXTN']);

/** argparse aliases → ServerArgs field names. */
const FLAG_ALIASES: Record<string, string> = {
  model: 'model_path',
  tensor_parallel_size: 'tp_size',
  tp: 'tp_size',
  data_parallel_size: 'dp_size',
  dp: 'dp_size',
  pipeline_parallel_size: 'pp_size',
  pp: 'pp_size',
  speculative_algo: 'speculative_algorithm',
};

export function sglangRequestFor(params: GenerationParams): BuiltRequest {
  if (params.api !== 'native') {
    return openAiRequest('sglang', params, { continuousUsage: true, ignoreEosField: true });
  }
  const samplingParams: Record<string, unknown> = {
    max_new_tokens: params.maxTokens,
    temperature: params.temperature,
  };
  if (params.ignoreEos) samplingParams.ignore_eos = true;
  const body: Record<string, unknown> = {
    text: params.prompt,
    sampling_params: samplingParams,
    stream: params.stream,
  };
  // meta_info then carries output_token_logprobs and output_top_logprobs ([logprob, id, text] triples)
  if (params.topLogprobs !== undefined)
    Object.assign(body, { return_logprob: true, top_logprobs_num: params.topLogprobs });
  return { method: 'POST', path: '/generate', body, tokenAccounting: 'native-cumulative' };
}

/**
 * Normalised + `sglang.`-prefixed facts from a ServerArgs-shaped map (server_info JSON, the parsed
 * ServerArgs(...) log line, or flags). Nulls the engine fills in later (context_length,
 * max_running_requests) stay unknown rather than null.
 */
export function factsFromServerArgs(args: Record<string, unknown>, source: string): ConfigFacts {
  const facts: ConfigFacts = {};
  setFact(facts, 'engine', 'sglang', source);
  if (typeof args.version === 'string') setFact(facts, 'engine_version', args.version, source);
  setFact(facts, 'model', args.model_path, source);
  setFact(facts, 'served_model_name', args.served_model_name ?? undefined, source);
  for (const [norm, native] of [
    ['tp_size', 'tp_size'],
    ['dp_size', 'dp_size'],
    ['pp_size', 'pp_size'],
    ['dtype', 'dtype'],
    ['quantization', 'quantization'],
    ['speculative.algorithm', 'speculative_algorithm'],
    ['speculative.draft_model', 'speculative_draft_model_path'],
    ['speculative.num_steps', 'speculative_num_steps'],
    ['speculative.topk', 'speculative_eagle_topk'],
    ['speculative.num_draft_tokens', 'speculative_num_draft_tokens'],
  ] as const) {
    setFact(facts, norm, args[native], source);
  }
  for (const key of ['context_length', 'max_running_requests'] as const) {
    if (args[key] !== null) setFact(facts, key, args[key], source);
  }
  const disabled = asBool(args.disable_overlap_schedule);
  if (disabled !== undefined) setFact(facts, 'overlap_schedule', !disabled, source);
  const native: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (k === 'internal_states' || k.startsWith('__')) continue;
    native[k] = v;
  }
  setNativeFacts(facts, 'sglang', redactDeep(native), source);
  return facts;
}

/**
 * Spec v2 is not in server_info: inferred from overlap on + an EAGLE-family algorithm (SGLang turns
 * overlap off for EAGLE unless spec v2 is on). Sets nothing when the inputs are unknown.
 */
export function inferSpecV2(facts: ConfigFacts): void {
  if ('speculative.spec_v2' in facts) return;
  const algo = facts['speculative.algorithm'];
  const overlap = facts.overlap_schedule;
  if (!algo) return;
  if (algo.value === null) {
    facts['speculative.spec_v2'] = {
      value: false,
      source: `no speculative algorithm (${algo.source})`,
      inferred: true,
    };
    return;
  }
  if (!overlap || typeof overlap.value !== 'boolean') return;
  const family = SPEC_V2_ALGORITHMS.has(String(algo.value).toUpperCase());
  if (!family) return;
  facts['speculative.spec_v2'] = {
    value: overlap.value,
    source: `inferred from overlap_schedule=${overlap.value} and speculative.algorithm=${algo.value} (${overlap.source})`,
    inferred: true,
  };
}

async function readLive(http: TargetHttp): Promise<LiveReading> {
  const raw: Record<string, unknown> = {};
  let facts: ConfigFacts = {};
  const info = await getFirstJsonObject(http, ['/server_info', '/get_server_info']);
  if (info) {
    raw[info.path] = redactDeep(info.json);
    facts = factsFromServerArgs(info.json, `GET ${info.path}`);
    noteTruncatedBody(facts, 'sglang', info.path, info.truncated);
    const states = Array.isArray(info.json.internal_states) ? info.json.internal_states : [];
    const first = states.find(isRecord);
    if (first) {
      // The scheduler's actual cap (memory may lower it below the flag); per data-parallel rank.
      const effective =
        first.effective_max_running_requests_per_dp ?? first.max_running_requests ?? undefined;
      const src = `GET ${info.path} internal_states[0]`;
      setFact(facts, 'sglang.effective_max_running_requests_per_dp', effective, src);
      const dp = typeof info.json.dp_size === 'number' ? info.json.dp_size : 1;
      if (!('max_running_requests' in facts) && typeof effective === 'number') {
        setFact(facts, 'max_running_requests', effective * dp, src);
      }
    }
  }
  const model = await getFirstJsonObject(http, ['/model_info', '/get_model_info']);
  if (model) {
    raw[model.path] = redactDeep(model.json);
    setFactIfAbsent(facts, 'engine', 'sglang', `GET ${model.path}`);
    setFactIfAbsent(facts, 'model', model.json.model_path ?? undefined, `GET ${model.path}`);
    for (const k of ['tokenizer_path', 'is_generation', 'weight_version']) {
      setFactIfAbsent(facts, `sglang.${k}`, model.json[k], `GET ${model.path}`);
    }
  }
  const first = (await readModelEntries(http, raw))?.[0];
  if (first) {
    setFactIfAbsent(facts, 'served_model_name', first.id, 'GET /v1/models');
    setFactIfAbsent(facts, 'context_length', first.max_model_len ?? undefined, 'GET /v1/models');
  }
  inferSpecV2(facts);
  return { facts, raw };
}

function readLog(text: string, path: string): LogReading {
  const lines = logicalLines(text);
  const markerIdx = startIndices(lines, (t) => t.includes(SGLANG_START_MARKER));
  const last = markerIdx.length > 0 ? markerIdx[markerIdx.length - 1] : -1;
  // SGLang prints its config warnings (spec v2, overlap) just before the ServerArgs line, so each
  // start's region reaches back over the lines printed shortly before its marker.
  const regionFirst = markerIdx.map((m, k) =>
    startRegionFirst(lines, m, k > 0 ? markerIdx[k - 1] : -1, isEarlierRunLine),
  );
  const regionStart = last >= 0 ? regionFirst[regionFirst.length - 1] : 0;
  const isReady = (t: string) => t.includes(SGLANG_READY_LINE);
  const reading = logReadingFromStarts(lines, markerIdx, isReady, {}, regionFirst, {
    failedStart: SGLANG_FAILED_START,
    acceptance: parseSglangAcceptanceLine,
  });
  if (last >= 0) {
    const l = lines[last];
    const at = l.text.indexOf(SGLANG_START_MARKER) + SGLANG_START_MARKER.length;
    const parsed = parsePyKwargs(l.text, at, ')');
    const source = `${path}:${l.line}`;
    reading.facts = factsFromServerArgs(parsed.value, source);
    if (!parsed.complete) setFact(reading.facts, 'sglang.server_args_truncated', true, source);
  }
  for (let i = regionStart; i < lines.length; i++) {
    const l = lines[i];
    if (SPEC_V2_ON_RE.test(l.text)) {
      setFact(reading.facts, 'speculative.spec_v2', true, `${path}:${l.line}`);
    } else if (OVERLAP_OFF_RE.test(l.text) && /spec v2 is off/i.test(l.text)) {
      setFactIfAbsent(reading.facts, 'speculative.spec_v2', false, `${path}:${l.line}`);
    }
  }
  inferSpecV2(reading.facts);
  return reading;
}

function readProcess(argv: string[], env: Record<string, string> | null, source: string): ConfigFacts {
  const start = indexAfter(
    argv,
    (t) => /sglang\.launch_server|sglang[/\\]launch_server\.py$/.test(t) || t === 'serve',
  );
  const { args, abbreviations } = readServerArgv(argv, start, SGLANG_FLAGS, FLAG_ALIASES);
  const facts = factsFromServerArgs(args, source);
  if (!('served_model_name' in facts) && typeof args.model_path === 'string') {
    setFact(facts, 'served_model_name', args.model_path, `${source} (defaults to --model-path)`, true);
  }
  if (abbreviations.length > 0) {
    const text = describeAbbreviations(abbreviations);
    setFact(facts, 'sglang.abbreviated_flags', text, `${source} (argparse unique-prefix abbreviations)`);
  }
  const specV2Env = envTruthy(env?.SGLANG_ENABLE_SPEC_V2);
  if (specV2Env !== undefined) {
    setFact(facts, 'speculative.spec_v2', specV2Env, `${source} environment SGLANG_ENABLE_SPEC_V2`);
    setFact(facts, 'sglang.env.SGLANG_ENABLE_SPEC_V2', env?.SGLANG_ENABLE_SPEC_V2, `${source} environment`);
  }
  if (!('speculative.algorithm' in facts) && argv.length > 0) {
    setFact(facts, 'speculative.algorithm', null, `${source} (no --speculative-algorithm flag)`, true);
  }
  if (!('overlap_schedule' in facts)) {
    // Without --disable-overlap-schedule, SGLang still turns overlap off for EAGLE-family
    // algorithms unless spec v2 is on.
    const algo = facts['speculative.algorithm']?.value;
    const family = typeof algo === 'string' && SPEC_V2_ALGORITHMS.has(algo.toUpperCase());
    if (!family) setFact(facts, 'overlap_schedule', true, `${source} (no --disable-overlap-schedule)`, true);
    else if (specV2Env !== undefined) {
      setFact(
        facts,
        'overlap_schedule',
        specV2Env,
        `${source} (EAGLE-family algorithm, SGLANG_ENABLE_SPEC_V2)`,
        true,
      );
    }
  }
  return facts;
}

export function sglangSpecCounters(metricsText: string): SpecCounters | null {
  const scrape = parsePrometheusText(metricsText);
  const out: SpecCounters = {};
  const gaugeSamples = scrape.samples.filter((s) => /^sglang[:_]spec_accept_length$/.test(s.name));
  if (gaugeSamples.length > 0) {
    // A gauge per rank: the mean over label sets, not the sum.
    const finite = gaugeSamples.filter((s) => Number.isFinite(s.value));
    if (finite.length > 0) out.acceptLengthGauge = finite.reduce((a, s) => a + s.value, 0) / finite.length;
  }
  const gen = sumMetric(scrape, 'sglang', 'generation_tokens_total');
  if (gen !== undefined) out.generationTokens = gen;
  return gaugeSamples.length > 0 ? out : null;
}

const WHERE_TO_READ: Record<string, string> = {
  'speculative.spec_v2':
    "the start-up log line 'Spec v2 is enabled for eagle/eagle3 speculative decoding and overlap schedule is turned on.' or SGLANG_ENABLE_SPEC_V2 in the server process environment (/proc/<pid>/environ)",
  overlap_schedule:
    "GET /server_info field disable_overlap_schedule, or the start-up log's server_args=ServerArgs(...) line and its 'Overlap scheduler is disabled' warning",
  context_length: 'GET /v1/models field max_model_len, or --context-length on the server command line',
  max_running_requests:
    "GET /server_info field max_running_requests (reset to 48 under speculative decoding when unset), or the log's server_args=ServerArgs(...) line",
  engine_version: 'GET /server_info field version',
};

function whereToRead(key: string): string | null {
  if (key in WHERE_TO_READ) return WHERE_TO_READ[key];
  if (key.startsWith('sglang.') || key.startsWith('speculative.') || key.endsWith('_size')) {
    return "GET /server_info (fallback /get_server_info), the start-up log's server_args=ServerArgs(...) line, or the server command line";
  }
  return null;
}

export const sglangAdapter: EngineAdapter = {
  name: 'sglang',
  async detect(http) {
    for (const path of ['/model_info', '/get_model_info']) {
      const { json } = await getJsonObject(http, path);
      if (json && 'model_path' in json) return true;
    }
    return false;
  },
  readLive,
  readLog,
  readProcess,
  requestFor: sglangRequestFor,
  specCounters: sglangSpecCounters,
  telemetrySeries: {
    running: ['sglang:num_running_reqs'],
    waiting: ['sglang:num_queue_reqs'],
    kvCacheUsage: ['sglang:token_usage'],
    prefixCacheHitRate: ['sglang:cache_hit_rate'],
    specAcceptLength: ['sglang:spec_accept_length'],
  },
  whereToRead,
  serverCommand: /sglang\.launch_server|sglang serve/,
};
