// The `sglang` flavour: SGLang's HTTP surface (native /generate, /server_info, /model_info,
// /flush_cache and the shared engine endpoints), its log lines and its /metrics names.

import { UVICORN } from './connection-policy.js';
import {
  detokenizeRoute,
  emptyOkRoute,
  metricsRoute,
  sendEngineLoading,
  tokenizeRoute,
} from './engine-endpoints.js';
import {
  sglangCrashLines,
  sglangDecodeLine,
  sglangLoadBeginLines,
  sglangLoadLines,
  sglangPrefillLine,
  sglangReadyLines,
  sglangStartErrorLines,
  sglangStartLines,
} from './engine-logs.js';
import type { FlavorSurface, Route, SurfaceContext } from './flavor.js';
import { promptKey } from './greedy-tokens.js';
import { sendJson, sendOpenAiError, sendText } from './http-util.js';
import { logprobAsk } from './logprobs.js';
import { sglangMetrics } from './metrics-text.js';
import { openAiRoutes } from './openai-surface.js';
import { modelConfigOf } from './scheduler-factory.js';
import { specGuessTokens } from './served-config.js';
import { sglangConfig } from './sglang-args.js';
import { tokenize } from './tokenizer.js';

/** SGLang main after v0.5.10.post1 (the surfaces follow 8471c9ebe; see README.md). */
export const SGLANG_VERSION = '0.5.10.post1';

function serverInfo(ctx: SurfaceContext) {
  const c = ctx.served;
  // scheduler.py get_internal_state: the server args, then the scheduler's figures; the accept length
  // only once a verify step has run
  const internal: Record<string, unknown> = {
    ...c.engineArgs,
    last_gen_throughput: ctx.scheduler.counters.genThroughputTokS,
    memory_usage: { weight: 32.24, kvcache: 9.42, token_capacity: c.maxTotalNumTokens, graph: 1.21 },
    effective_max_running_requests_per_dp: c.maxRunningRequests,
  };
  if (c.specAlgorithm && ctx.scheduler.counters.specVerifyCt > 0)
    internal.avg_spec_accept_length = ctx.metricsSnapshot().avgAcceptLen;
  return {
    ...c.engineArgs,
    version: SGLANG_VERSION,
    max_total_num_tokens: c.maxTotalNumTokens,
    status: 'ready',
    internal_states: [internal],
  };
}

function modelInfo(ctx: SurfaceContext) {
  const arch = ctx.profile.architecture;
  return {
    model_path: ctx.served.modelPath,
    tokenizer_path: ctx.served.modelPath,
    is_generation: true,
    preferred_sampling_params: null,
    weight_version: 'default',
    has_image_understanding: false,
    has_audio_understanding: false,
    model_type: arch.replace(/ForCausalLM$/, '').toLowerCase(),
    architectures: [arch],
  };
}

const GENERATE_ROUTE: Route = {
  methods: ['POST'],
  paths: ['/generate'],
  handle(ctx, body, res) {
    let promptIds: number[];
    if (typeof body.text === 'string') promptIds = tokenize(body.text);
    else if (Array.isArray(body.input_ids) && body.input_ids.every((x) => typeof x === 'number'))
      promptIds = body.input_ids as number[];
    else {
      ctx.sendError(
        res,
        400,
        'Expected "text" (a string) or "input_ids" (a list of ids) in the /generate body.',
      );
      return;
    }
    const sp = (body.sampling_params ?? {}) as Record<string, unknown>;
    ctx.generate(res, {
      api: 'native',
      model: ctx.served.servedModelName,
      promptTokens: promptIds.length,
      promptIds,
      maxNewTokens:
        sp.max_new_tokens === undefined || sp.max_new_tokens === null ? 128 : Number(sp.max_new_tokens),
      stream: body.stream === true,
      includeUsage: false,
      continuousUsage: false,
      specGuessTokens: specGuessTokens(ctx.served),
      greedyKey: sp.temperature === 0 ? promptKey(body.text ?? body.input_ids) : null,
      topLogprobs: logprobAsk('native', body),
    });
  },
};

/** tokenizer_manager.py _validate_input: input + max_new_tokens must stay below the context length. */
function sglangLengthError(contextLength: number, promptTokens: number, maxNewTokens: number): string | null {
  const total = promptTokens + maxNewTokens;
  if (total < contextLength) return null;
  return `Requested token count exceeds the model's maximum context length of ${contextLength} tokens. You requested a total of ${total} tokens: ${promptTokens} tokens from the input messages and ${maxNewTokens} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`;
}

const SGLANG_ROUTES: Route[] = [
  ...openAiRoutes((ctx) => ({
    // openai/protocol.py ModelCard: root is the served name, created is the time of the request
    id: ctx.served.servedModelName,
    object: 'model',
    created: Math.floor(Date.now() / 1000),
    owned_by: 'sglang',
    root: ctx.served.servedModelName,
    parent: null,
    max_model_len: ctx.served.contextLength,
  })),
  emptyOkRoute('/health'),
  emptyOkRoute('/health_generate'),
  tokenizeRoute(['/tokenize', '/v1/tokenize'], false),
  detokenizeRoute(['/detokenize', '/v1/detokenize'], (text) => ({ text })),
  metricsRoute(sglangMetrics),
  {
    methods: ['GET'],
    paths: ['/server_info', '/get_server_info'],
    handle: (ctx, _body, res) => sendJson(res, 200, serverInfo(ctx)),
  },
  {
    methods: ['GET'],
    paths: ['/model_info', '/get_model_info'],
    handle: (ctx, _body, res) => sendJson(res, 200, modelInfo(ctx)),
  },
  {
    methods: ['GET', 'POST'],
    paths: ['/flush_cache'],
    handle(ctx, _body, res) {
      // scheduler.flush_cache: refused (400, same text) while requests run or wait
      const idle = ctx.scheduler.numRunning() + ctx.scheduler.numQueued() === 0;
      if (idle) ctx.dropPrefixCache();
      sendText(
        res,
        idle ? 200 : 400,
        'Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n',
      );
    },
  },
  GENERATE_ROUTE,
];

export const SGLANG_SURFACE: FlavorSurface = {
  httpServer: UVICORN,
  deriveConfig: sglangConfig,
  publicPaths: ['/health', '/metrics'],
  // http_server.py health_generate: `Response(status_code=503)` (no body) while starting
  sendError: sendOpenAiError,
  lengthError: sglangLengthError,
  sendLoading: (res, path) =>
    path === '/health' || path === '/health_generate'
      ? sendText(res, 503, '')
      : sendEngineLoading(res, path, sendOpenAiError),
  routes: SGLANG_ROUTES,
  logs: {
    start: (c, at) => sglangStartLines(c, at),
    startError: sglangStartErrorLines,
    loading: (c, at) => sglangLoadBeginLines(c, at),
    loaded: (c, at, _pid, architecture) => sglangLoadLines(c, at, architecture),
    ready: sglangReadyLines,
    crash: sglangCrashLines,
    defaultPort: 30000,
    stepLogger(ctx) {
      const draftTokens = modelConfigOf(ctx.served).spec?.numDraftTokens ?? null;
      return (kind, f) =>
        ctx.write(
          kind === 'decode' ? sglangDecodeLine(new Date(), f, draftTokens) : sglangPrefillLine(new Date(), f),
        );
    },
  },
};
