// Endpoints SGLang and vLLM both serve beside the OpenAI ones (/health, /tokenize, /detokenize,
// /metrics) and their answer while the model loads; each engine surface picks the ones it has.

import type { ServerResponse } from 'node:http';
import type { Route } from './flavor.js';
import { type ErrorSender, sendJson, sendText } from './http-util.js';
import type { MetricsSnapshot } from './metrics-text.js';
import { applyChatTemplate, type ChatMessage, detokenize, tokenize } from './tokenizer.js';

/** 503 while loading: `{detail}` from the health endpoints, the OpenAI error body elsewhere. */
export function sendEngineLoading(res: ServerResponse, path: string, sendError: ErrorSender): void {
  if (path === '/health' || path === '/health_generate') {
    sendJson(res, 503, { detail: 'Service Unavailable' });
    return;
  }
  sendError(res, 503, 'The server is not ready yet (model loading).', 'ServiceUnavailableError');
}

/** An empty 200 (the engines' /health once ready). */
export function emptyOkRoute(path: string): Route {
  return {
    methods: ['GET'],
    paths: [path],
    handle(_ctx, _body, res) {
      sendText(res, 200, '', 'application/json');
    },
  };
}

/**
 * POST /tokenize (and the aliases in `paths`); `tokenStrs` adds vLLM's `token_strs: null` (SGLang's
 * TokenizeResponse has only tokens, count, max_model_len).
 */
export function tokenizeRoute(paths: string[], tokenStrs: boolean): Route {
  return {
    methods: ['POST'],
    paths,
    handle(ctx, body, res) {
      let text = '';
      if (Array.isArray(body.messages)) text = applyChatTemplate(body.messages as ChatMessage[]);
      else if (typeof body.prompt === 'string') text = body.prompt;
      else if (typeof body.text === 'string') text = body.text;
      else {
        ctx.sendError(res, 400, 'Expected "prompt" (a string) or "messages" in the /tokenize body.');
        return;
      }
      const tokens = tokenize(text);
      const answer: Record<string, unknown> = {
        count: tokens.length,
        max_model_len: ctx.served.contextLength,
        tokens,
      };
      if (tokenStrs) answer.token_strs = null;
      sendJson(res, 200, answer);
    },
  };
}

/** POST /detokenize; `shape` is the engine's answer body for the text. */
export function detokenizeRoute(paths: string[], shape: (text: string) => Record<string, string>): Route {
  return {
    methods: ['POST'],
    paths,
    handle(ctx, body, res) {
      const ids = body.tokens;
      if (!Array.isArray(ids) || !ids.every((x) => Number.isInteger(x) && x >= 0)) {
        ctx.sendError(res, 400, 'Expected "tokens" to be a list of non-negative token ids.');
        return;
      }
      sendJson(res, 200, shape(detokenize(ids as number[])));
    },
  };
}

/** GET /metrics in the engine's Prometheus names. */
export function metricsRoute(render: (snap: MetricsSnapshot) => string): Route {
  return {
    methods: ['GET'],
    paths: ['/metrics'],
    handle(ctx, _body, res) {
      sendText(res, 200, render(ctx.metricsSnapshot()), 'text/plain; version=0.0.4; charset=utf-8');
    },
  };
}
