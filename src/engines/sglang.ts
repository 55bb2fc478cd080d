// SGLang adapter: native /generate requests, /server_info and /model_info reads (and their /get_*
// names before 0.5.6), sglang: Prometheus counters; its ServerArgs facts live in sglang-args.ts and its
// log in sglang-log.ts.

import { redactDeep } from '../core/redact.js';
import { flushSglang } from './cache-flush.js';
import { isRecord, setFact, setFactIfAbsent } from './facts.js';
import { openAiRequest } from './openai-request.js';
import { getFirstJsonObject, getJsonObject, noteTruncatedBody, readModelEntries } from './probe.js';
import { parsePrometheusText, sumMetric } from './prometheus.js';
import { factsFromServerArgs, inferSpecV2, readSglangProcess } from './sglang-args.js';
import { readSglangLog } from './sglang-log.js';
import type {
  BuiltRequest,
  ConfigFacts,
  EngineAdapter,
  GenerationParams,
  LiveReading,
  SpecCounters,
  TargetHttp,
} from './types.js';

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
      // the scheduler's mean acceptance length since its last reset (0.4.6 on): live proof drafts are accepted
      setFact(facts, 'sglang.avg_spec_accept_length', first.avg_spec_accept_length, src);
      const acceptLength = first.avg_spec_accept_length;
      if (typeof acceptLength === 'number' && acceptLength > 1)
        setFact(facts, 'speculative.active', true, `${src} avg_spec_accept_length = ${acceptLength}`);
      // what the scheduler admits wins over the flag (memory or a hybrid model's state cache can cap it
      // below `--max-running-requests`, which /server_info keeps showing); the flag stays
      // sglang.max_running_requests. Per rank: without dp_size the whole server's cap is unknown.
      const dp = info.json.dp_size;
      if (typeof effective === 'number' && typeof dp === 'number')
        setFact(facts, 'max_running_requests', effective * dp, src);
    }
    readAllowListedServerInfo(info.json, info.path, facts);
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

/**
 * The Rust HTTP server (SGLANG_RUST_SERVER=1, from 2026-07-31) answers /server_info with an allow-list:
 * `model_path`, `served_model_name`, `tokenizer_path`, `max_context_length`, `max_total_num_tokens`,
 * `version` and some `internal_states` keys, no ServerArgs field (rust/sglang-server/src/api_server/common.rs,
 * main 2026-08-22). Its context length is read; the missing fields stay unknown, and the body says why.
 */
function readAllowListedServerInfo(body: Record<string, unknown>, path: string, facts: ConfigFacts): void {
  // a Python body cut short also lacks them: only the Rust body's own key tells the two apart
  if ('tp_size' in body || 'dp_size' in body || !('max_context_length' in body)) return;
  const src = `GET ${path}`;
  setFactIfAbsent(facts, 'context_length', body.max_context_length ?? undefined, `${src} max_context_length`);
  setFact(
    facts,
    'sglang.server_info_server_args',
    "absent: an allow-listed body (the Rust HTTP server, SGLANG_RUST_SERVER=1); ServerArgs come from the log's server_args=ServerArgs(...) line or the command line",
    src,
  );
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
    "the start-up log line 'Spec v2 is enabled for eagle/eagle3 speculative decoding and overlap schedule is turned on.' or SGLANG_ENABLE_SPEC_V2 in the server process environment (/proc/<pid>/environ), on builds before 2026-06-11; from then on (spec v1 retired) an EAGLE-family server runs spec v2 exactly when the overlap scheduler runs: GET /server_info field disable_overlap_schedule",
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
  readLog: readSglangLog,
  readProcess: (argv, env, source, live) => readSglangProcess(argv, env, source, live?.engine_version?.value),
  requestFor: sglangRequestFor,
  specCounters: sglangSpecCounters,
  telemetrySeries: {
    running: ['sglang:num_running_reqs'],
    waiting: ['sglang:num_queue_reqs'],
    kvCacheUsage: ['sglang:token_usage'],
    prefixCacheHitRate: ['sglang:cache_hit_rate'],
    // cached / all prompt tokens: the OpenAI routes report cached tokens per request only with
    // --enable-cache-report, so a level's cached share comes from these counters' deltas
    prefixCacheHitTokens: ['sglang:cached_tokens_total'],
    prefixCacheQueryTokens: ['sglang:prompt_tokens_total'],
    specAcceptLength: ['sglang:spec_accept_length'],
  },
  whereToRead,
  acceptanceSources: { verifySteps: 'meta_info.spec_verify_ct' },
  flushPrefixCache: flushSglang,
  serverCommand: /sglang\.launch_server|sglang serve/,
  // setproctitle in every subprocess: sglang::scheduler_TP0, sglang::detokenizer, sglang::data_parallel_controller
  workerTitle: /^sglang::\w/,
};
