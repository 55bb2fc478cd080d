// The OpenAI-compatible surface every flavour serves (/v1/models, /v1/completions,
// /v1/chat/completions), and the plain `openai` flavour, which serves only that.

import type { ServerResponse } from 'node:http';
import { UVICORN } from './connection-policy.js';
import { sglangCrashLines } from './engine-logs.js';
import type { FlavorSurface, Route, SurfaceContext } from './flavor.js';
import { promptKey } from './greedy-tokens.js';
import { sendJson, sendVllmError } from './http-util.js';
import { logprobAsk } from './logprobs.js';
import { specGuessTokens } from './served-config.js';
import { applyChatTemplate, type ChatMessage, tokenize } from './tokenizer.js';
import { openaiConfig } from './vllm-args.js';

/** One entry of /v1/models as the engine writes it. */
export type ModelCard = (ctx: SurfaceContext) => Record<string, unknown>;

/** vLLM's ModelCard (also the plain OpenAI flavour): root is the model path, with permissions. */
export function vllmModelCard(owner: string): ModelCard {
  return (ctx) => ({
    id: ctx.served.servedModelName,
    object: 'model',
    created: Math.floor(ctx.processStartEpochMs / 1000),
    owned_by: owner,
    root: ctx.served.modelPath,
    parent: null,
    max_model_len: ctx.served.contextLength,
    permission: [],
  });
}

/** Prompt token ids of a completions or chat body, or null after answering 400. */
function promptIdsOf(
  ctx: SurfaceContext,
  body: Record<string, unknown>,
  chat: boolean,
  res: ServerResponse,
): number[] | null {
  if (chat) {
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      ctx.sendError(res, 400, 'Expected "messages" to be a non-empty list.');
      return null;
    }
    return tokenize(applyChatTemplate(body.messages as ChatMessage[]));
  }
  const p = body.prompt;
  if (typeof p === 'string') return tokenize(p);
  if (Array.isArray(p) && p.every((x) => typeof x === 'number')) return p as number[];
  if (Array.isArray(p) && p.length === 1 && typeof p[0] === 'string') return tokenize(p[0]);
  ctx.sendError(res, 400, 'Expected "prompt" to be a string, one string in a list, or a list of token ids.');
  return null;
}

function completionRoute(path: string, chat: boolean): Route {
  return {
    methods: ['POST'],
    paths: [path],
    handle(ctx, body, res) {
      const promptIds = promptIdsOf(ctx, body, chat, res);
      if (promptIds === null) return;
      const maxRaw = chat ? (body.max_completion_tokens ?? body.max_tokens) : body.max_tokens;
      const maxNewTokens = maxRaw === undefined || maxRaw === null ? (chat ? 128 : 16) : Number(maxRaw);
      const so = (body.stream_options ?? {}) as Record<string, unknown>;
      ctx.generate(res, {
        api: chat ? 'chat' : 'completions',
        model: typeof body.model === 'string' ? body.model : ctx.served.servedModelName,
        promptTokens: promptIds.length,
        promptIds,
        maxNewTokens,
        stream: body.stream === true,
        includeUsage: so.include_usage === true,
        continuousUsage: so.continuous_usage_stats === true,
        specGuessTokens: specGuessTokens(ctx.served),
        greedyKey: body.temperature === 0 ? promptKey(chat ? body.messages : body.prompt) : null,
        topLogprobs: logprobAsk(chat ? 'chat' : 'completions', body),
      });
    },
  };
}

/** The OpenAI routes, with the engine's /v1/models entry. */
export function openAiRoutes(card: ModelCard): Route[] {
  return [
    {
      methods: ['GET'],
      paths: ['/v1/models'],
      handle(ctx, _body, res) {
        sendJson(res, 200, { object: 'list', data: [card(ctx)] });
      },
    },
    completionRoute('/v1/completions', false),
    completionRoute('/v1/chat/completions', true),
  ];
}

/** vLLM's refusal (renderers/params.py): the prompt may not exceed max_model_len − max_tokens. */
export function vllmLengthError(
  contextLength: number,
  promptTokens: number,
  maxNewTokens: number,
): string | null {
  const total = promptTokens + maxNewTokens;
  if (total <= contextLength) return null;
  return `This model's maximum context length is ${contextLength} tokens. However, you requested ${maxNewTokens} output tokens and your prompt contains ${promptTokens} input tokens, for a total of ${total} tokens. Please reduce the length of the input prompt or the number of requested output tokens.`;
}

/** A bare OpenAI-compatible server: no engine endpoints, no engine log, no flags. */
export const OPENAI_SURFACE: FlavorSurface = {
  httpServer: UVICORN,
  deriveConfig: (profile, argv) => openaiConfig(profile, argv),
  publicPaths: ['/health', '/metrics'],
  sendError: sendVllmError,
  lengthError: vllmLengthError,
  sendLoading: (res) => sendJson(res, 503, { detail: 'Service Unavailable' }),
  routes: openAiRoutes(vllmModelCard('system')),
  logs: {
    start: () => [],
    startError: () => [],
    loaded: () => [],
    ready: () => [],
    crash: sglangCrashLines,
    defaultPort: 8000,
  },
};
