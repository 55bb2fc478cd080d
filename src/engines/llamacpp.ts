// llama.cpp (llama-server) adapter: OpenAI requests, /tokenize with `content`, /props, /health and /slots
// reads and its /metrics speculative counters. Its command line is read in llamacpp-flags.ts (for the
// build that runs: llamacpp-builds.ts) and its log in llamacpp-log.ts. Facts observed on a real server
// are recorded in fixtures/llamacpp/README.md.

import { redactDeep } from '../core/redact.js';
import { flushLlamacpp } from './cache-flush.js';
import { isRecord, setFact, setFactIfAbsent, setNativeFacts } from './facts.js';
import { llamacppAcceptanceGap } from './llamacpp-acceptance-gap.js';
import { readLlamacppProcess } from './llamacpp-flags.js';
import { readLlamacppLog } from './llamacpp-log.js';
import { openAiRequest } from './openai-request.js';
import { getJsonObject, noteTruncatedBody, readModelEntries } from './probe.js';
import { parsePrometheusText, specDecodeCounters, sumMetric } from './prometheus.js';
import type {
  BuiltRequest,
  ConfigFacts,
  EngineAdapter,
  GenerationParams,
  LiveReading,
  SpecCounters,
  TargetHttp,
  TokenizeRequest,
} from './types.js';

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
    // every slot drafts (can_speculate) or none does: live evidence of speculation
    if (on || off) setFact(facts, 'speculative.active', on, src);
    // `speculative: false` on every slot means no speculation runs, whatever /props or -md say
    if (off)
      setFactIfAbsent(facts, 'speculative.algorithm', null, `${src} (speculative: false on every slot)`);
  }
}

/**
 * /props keys that are not configuration: the chat template (read elsewhere), the generation defaults (read
 * key by key), and `media_marker`, a random string drawn at each start (b10587): as a fact it made every
 * comparison across two starts of one configuration "not apples to apples".
 */
const PROPS_NOT_CONFIG = new Set(['chat_template', 'default_generation_settings', 'media_marker']);

async function readLive(http: TargetHttp): Promise<LiveReading> {
  const raw: Record<string, unknown> = {};
  const facts: ConfigFacts = {};
  const props = await getJsonObject(http, '/props');
  if (props.json) {
    const p = props.json;
    const src = 'GET /props';
    noteTruncatedBody(facts, 'llamacpp', '/props', props.truncated);
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
    for (const [k, v] of Object.entries(p)) if (!PROPS_NOT_CONFIG.has(k)) native[k] = v;
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
  // builds of 2025 list the draft depth in /props params (`speculative.n_max`): what a speculating server drafts
  const nMax = facts['llamacpp.params.speculative.n_max'];
  if (facts['speculative.active']?.value === true && nMax && typeof nMax.value === 'number')
    setFact(facts, 'speculative.num_steps', nMax.value, 'GET /props default_generation_settings.params');
  const first = (await readModelEntries(http, raw))?.[0];
  if (first) setFactIfAbsent(facts, 'served_model_name', first.id, 'GET /v1/models');
  return { facts, raw };
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
    return 'GET /slots field speculative, or the llama-server command line (--spec-type; -md alone speculates only on builds before b9474, so the build must be known: GET /props build_info); /props speculative.types is not reliable';
  if (key.startsWith('speculative.'))
    return 'the llama-server command line (-md/--spec-draft-model, --spec-type, --spec-draft-n-max)';
  return null;
}

export const llamacppAdapter: EngineAdapter = {
  name: 'llamacpp',
  async detect(http) {
    const { json, truncated } = await getJsonObject(http, '/props');
    if (json === null) return false;
    // a body cut inside its first field still names it
    const first = truncated?.droppedKey;
    return (
      'default_generation_settings' in json ||
      'total_slots' in json ||
      json.role === 'router' ||
      first === 'default_generation_settings'
    );
  },
  readLive,
  readLog: readLlamacppLog,
  readProcess(argv, env, source, live) {
    const slots = live?.['llamacpp.speculative']?.value;
    return readLlamacppProcess(argv, env, source, {
      engineVersion: live?.engine_version?.value,
      slotsSpeculative: typeof slots === 'boolean' ? slots : undefined,
    });
  },
  requestFor: llamacppRequestFor,
  tokenizeRequest: llamacppTokenizeRequest,
  specCounters: llamacppSpecCounters,
  telemetrySeries: {
    running: ['llamacpp:requests_processing'],
    waiting: ['llamacpp:requests_deferred'],
    kvCacheUsage: ['llamacpp:kv_cache_usage_ratio'],
  },
  whereToRead,
  acceptanceSources: {
    verifySteps: 'timings.draft_n_accepted',
    verifyStepsNote: 'verify steps = predicted_n - 1 - draft_n_accepted',
    counterTokens: 'llamacpp:tokens_predicted_total / llamacpp:spec_decode_num_drafts_total',
    counterAccepted: 'llamacpp:spec_decode_num_accepted_tokens_total / llamacpp:spec_decode_num_drafts_total',
  },
  acceptanceGap: llamacppAcceptanceGap,
  flushPrefixCache: flushLlamacpp,
  serverCommand: /\bllama-server\b/,
};
