// vLLM adapter: OpenAI requests with continuous usage, /version + /v1/models + /metrics (+ dev-mode
// /server_info) reads and vllm:spec_decode_* counters; its argument facts live in vllm-args.ts and its
// log in vllm-log.ts.

import { redactDeep } from '../core/redact.js';
import { flagValue } from './argv.js';
import { flushVllm } from './cache-flush.js';
import { addMissingFacts, setFact, setFactIfAbsent } from './facts.js';
import { openAiRequest } from './openai-request.js';
import { getJsonObject, noteTruncatedBody, readModelEntries } from './probe.js';
import { findSamples, parsePrometheusText, specDecodeCounters, sumMetric } from './prometheus.js';
import type {
  BuiltRequest,
  ConfigFacts,
  EngineAdapter,
  GenerationParams,
  LiveReading,
  SpecCounters,
  TargetHttp,
} from './types.js';
import { factsFromVllmConfig, readVllmProcess } from './vllm-args.js';
import { readVllmLog } from './vllm-log.js';

export function vllmRequestFor(params: GenerationParams): BuiltRequest {
  return openAiRequest('vllm', params, { continuousUsage: true, ignoreEosField: true });
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
    // accepted draft tokens counted since the server started: live proof that it speculates
    const accepted = specDecodeCounters(scrape, 'vllm')?.acceptedTokens;
    if (accepted !== undefined && accepted > 0)
      setFact(
        facts,
        'speculative.active',
        true,
        `GET /metrics vllm:spec_decode_num_accepted_tokens_total = ${accepted}`,
      );
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
  readLog: readVllmLog,
  readProcess: readVllmProcess,
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
  acceptanceSources: {
    counterAccepted: 'vllm:spec_decode_num_accepted_tokens_total / vllm:spec_decode_num_drafts_total',
  },
  flushPrefixCache: flushVllm,
  serverCommand: /vllm\.entrypoints|vllm serve/,
  // set_process_title: VLLM::EngineCore, VLLM::Worker_TP0, VLLM::APIServer
  workerTitle: /^VLLM::\w/,
};
