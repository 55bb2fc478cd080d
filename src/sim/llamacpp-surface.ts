// The `llamacpp` flavour: llama-server's HTTP surface (/health, /props, /slots, /tokenize with `content`,
// /metrics with `llamacpp:` names, /v1/models, completions and chat with its stream shapes), its error
// bodies and its 2026-format log lines, as observed on a real llama-server (commit 3f545becc; see
// src/engines/fixtures/llamacpp/README.md). Flags: llamacpp-args.ts; logs: llamacpp-logs.ts.

import type { ServerResponse } from 'node:http';
import { HTTPLIB } from './connection-policy.js';
import { sglangCrashLines } from './engine-logs.js';
import type { FlavorSurface, Route, SurfaceContext } from './flavor.js';
import { promptKey } from './greedy-tokens.js';
import { sendJson, sendText } from './http-util.js';
import { LLAMACPP_BUILD_INFO, llamacppConfig } from './llamacpp-args.js';
import { LlamacppEvents } from './llamacpp-events.js';
import {
  llamacppFinishedLines,
  llamacppLine,
  llamacppReadyLines,
  llamacppStartLines,
} from './llamacpp-logs.js';
import { llamacppMetrics } from './llamacpp-metrics.js';
import { logprobAsk } from './logprobs.js';
import { specGuessTokens } from './served-config.js';
import { applyChatTemplate, type ChatMessage, countTokens, tokenize } from './tokenizer.js';

/** The BOS token id of the LLaMA SPM vocabulary (`/tokenize` with add_special). */
const BOS_ID = 1;

function sendLlamaError(
  res: ServerResponse,
  status: number,
  message: string,
  type = 'invalid_request_error',
): void {
  res.setHeader('Server', 'llama.cpp');
  sendJson(res, status, { error: { code: status, message, type } });
}

/** A route that answers with llama-server's `Server` header. */
function route(methods: Route['methods'], paths: string[], handle: Route['handle']): Route {
  return {
    methods,
    paths,
    handle(ctx, body, res, url) {
      res.setHeader('Server', 'llama.cpp');
      handle(ctx, body, res, url);
    },
  };
}

/**
 * POST /slots/{id}?action=erase: every build refuses slot actions (501) unless started with
 * --slot-save-path. The simulated cache is one for all slots: the first erase drops it.
 */
const slotAction: Route['handle'] = (ctx, _body, res, url) => {
  if (typeof ctx.served.engineArgs.slot_save_path !== 'string')
    return sendLlamaError(
      res,
      501,
      'This server does not support slots action. Start it with `--slot-save-path`',
      'not_supported_error',
    );
  const id = Number(url.pathname.split('/').at(-1));
  if (!Number.isInteger(id) || id < 0 || id >= ctx.served.maxRunningRequests)
    return sendLlamaError(res, 400, 'Invalid slot ID');
  if (url.searchParams.get('action') !== 'erase') return sendLlamaError(res, 400, 'Invalid action');
  sendJson(res, 200, { id_slot: id, n_erased: ctx.dropPrefixCache() });
};

/** `/props` as llama-server answers it (fields observed; the chat template shortened). */
export function llamacppProps(ctx: SurfaceContext): Record<string, unknown> {
  const c = ctx.served;
  return {
    default_generation_settings: {
      // the real server reports speculative.types "none" even while it speculates
      params: {
        seed: 4294967295,
        temperature: 0.8,
        top_k: 40,
        top_p: 0.95,
        n_predict: -1,
        'speculative.types': 'none',
      },
      n_ctx: c.contextLength,
    },
    total_slots: c.maxRunningRequests,
    model_alias: c.servedModelName,
    model_ftype: 'Q8_0',
    model_path: c.modelPath,
    modalities: { vision: false, video: false, audio: false },
    endpoint_slots: c.engineArgs.no_slots !== true,
    endpoint_props: false,
    endpoint_metrics: c.engineArgs.metrics === true,
    chat_template: '{{ bos_token }}{% for message in messages %}{{ message.content }}{% endfor %}',
    bos_token: '<s>',
    eos_token: '</s>',
    build_info: LLAMACPP_BUILD_INFO,
    is_sleeping: false,
  };
}

function completionRoute(path: string, chat: boolean): Route {
  return route(['POST'], [path], (ctx, body, res) => {
    let text: string;
    if (chat) {
      if (!Array.isArray(body.messages) || body.messages.length === 0)
        return sendLlamaError(res, 400, "'messages' is required");
      text = applyChatTemplate(body.messages as ChatMessage[]);
    } else {
      if (typeof body.prompt !== 'string') return sendLlamaError(res, 400, '"prompt" must be a string');
      text = body.prompt;
    }
    const maxRaw = body.max_tokens ?? body.n_predict;
    const includeUsage = ((body.stream_options ?? {}) as Record<string, unknown>).include_usage === true;
    ctx.generate(res, {
      api: chat ? 'chat' : 'completions',
      model: typeof body.model === 'string' ? body.model : ctx.served.servedModelName,
      // llama-server counts the BOS token in usage.prompt_tokens; slot reuse keys on the ids, BOS first
      promptTokens: countTokens(text) + 1,
      promptIds: [BOS_ID, ...tokenize(text)],
      maxNewTokens: maxRaw === undefined || maxRaw === null ? 16 : Number(maxRaw),
      stream: body.stream === true,
      includeUsage,
      continuousUsage: false,
      specGuessTokens: specGuessTokens(ctx.served),
      renderer: (id) => new LlamacppEvents(id, includeUsage),
      greedyKey: body.temperature === 0 ? promptKey(text) : null,
      topLogprobs: logprobAsk(chat ? 'chat' : 'completions', body),
    });
  });
}

const ROUTES: Route[] = [
  route(['GET'], ['/health'], (_ctx, _body, res) => sendJson(res, 200, { status: 'ok' })),
  route(['GET'], ['/props'], (ctx, _body, res) => sendJson(res, 200, llamacppProps(ctx))),
  route(['GET'], ['/slots'], (ctx, _body, res) => {
    const c = ctx.served;
    if (c.engineArgs.no_slots === true)
      return sendLlamaError(
        res,
        501,
        'This server does not support slots endpoint. Start it with `--slots`',
        'not_supported_error',
      );
    const busy = ctx.scheduler.numRunning();
    const slot = (id: number) => ({
      id,
      n_ctx: c.contextLength,
      speculative: c.specAlgorithm !== null,
      is_processing: id < busy,
    });
    sendJson(
      res,
      200,
      Array.from({ length: c.maxRunningRequests }, (_, id) => slot(id)),
    );
  }),
  route(['POST'], ['/slots/*'], slotAction),
  route(['GET'], ['/metrics'], (ctx, _body, res) => {
    if (ctx.served.engineArgs.metrics !== true)
      return sendLlamaError(
        res,
        501,
        'This server does not support metrics endpoint. Start it with `--metrics`',
        'not_supported_error',
      );
    sendText(
      res,
      200,
      llamacppMetrics(ctx.served, ctx.scheduler, ctx.metricsSnapshot().prefixCache),
      'text/plain; version=0.0.4',
    );
  }),
  route(['GET'], ['/v1/models', '/models'], (ctx, _body, res) => {
    const c = ctx.served;
    const id = c.servedModelName;
    const meta = { vocab_type: 1, n_vocab: 32000, n_ctx: c.contextLength, n_ctx_train: c.maxTotalNumTokens };
    const created = Math.floor(ctx.processStartEpochMs / 1000);
    sendJson(res, 200, {
      models: [{ name: id, model: id, type: 'model', capabilities: ['completion'] }],
      object: 'list',
      data: [{ id, aliases: [id], tags: [], object: 'model', created, owned_by: 'llamacpp', meta }],
    });
  }),
  route(['POST'], ['/tokenize'], (_ctx, body, res) => {
    // `content` only: a `prompt` field is not read and answers no tokens, as the real server does
    const text = typeof body.content === 'string' ? body.content : '';
    const ids = text === '' ? [] : tokenize(text);
    sendJson(res, 200, { tokens: body.add_special === true && text !== '' ? [BOS_ID, ...ids] : ids });
  }),
  completionRoute('/v1/completions', false),
  completionRoute('/completion', false),
  completionRoute('/v1/chat/completions', true),
];

/** Elapsed ms of each load (keyed by the `at` the simulator passes to loaded and then ready). */
const loadedElapsed = new WeakMap<Date, number>();
/** Start time of each served configuration (keyed by the config object the simulator logs for). */
const startedAt = new WeakMap<object, number>();

export const LLAMACPP_SURFACE: FlavorSurface = {
  deriveConfig: (profile, argv) => llamacppConfig(profile, argv),
  publicPaths: ['/health', '/metrics'],
  sendError: (res, status, message, type) => sendLlamaError(res, status, message, type),
  lengthError: (ctxLen, prompt, max) =>
    prompt + max > ctxLen ? `the request exceeds the available context size (${ctxLen} tokens)` : null,
  sendLoading: (res) => sendLlamaError(res, 503, 'Loading model', 'unavailable_error'),
  routes: ROUTES,
  httpServer: HTTPLIB,
  logs: {
    start(c, at) {
      startedAt.set(c, at.getTime());
      return llamacppStartLines(c, 3);
    },
    startError: () => [],
    loaded(c, at) {
      const elapsed = Math.max(0, at.getTime() - (startedAt.get(c) ?? at.getTime()));
      loadedElapsed.set(at, elapsed);
      return llamacppReadyLines(c, elapsed, '', 0).slice(0, -1);
    },
    ready: (at, host, port) => [
      llamacppLine(
        loadedElapsed.get(at) ?? 0,
        'I',
        'srv',
        'llama_server',
        `listening on http://${host}:${port}`,
      ),
    ],
    crash: sglangCrashLines,
    defaultPort: 8080,
    requestFinished: llamacppFinishedLines,
  },
};
