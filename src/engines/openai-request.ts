// Builds OpenAI-compatible streaming generation requests (/v1/completions, /v1/chat/completions)
// with the usage-reporting options each engine supports. Engine files choose the options.

import { BenchgateError } from '../core/errors.js';
import type { BuiltRequest, EngineName, GenerationParams } from './types.js';

export interface OpenAiRequestOptions {
  /** The engine honours stream_options.continuous_usage_stats (usage on every chunk). */
  continuousUsage: boolean;
  /** The engine honours a top-level `ignore_eos` in OpenAI requests. */
  ignoreEosField: boolean;
  /** The engine honours stream_options.include_usage (a final usage chunk). */
  includeUsage?: boolean;
}

export function openAiRequest(
  engine: EngineName,
  params: GenerationParams,
  opts: OpenAiRequestOptions,
): BuiltRequest {
  if (params.api === 'native') {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `api "native" (POST /generate) is only available for SGLang, but the target engine is ${engine}; use api "completions" or "chat".`,
    );
  }
  const body: Record<string, unknown> = { model: params.model };
  if (params.api === 'chat') body.messages = params.messages ?? [{ role: 'user', content: params.prompt }];
  else body.prompt = params.prompt;
  body.max_tokens = params.maxTokens;
  body.temperature = params.temperature;
  body.stream = params.stream;
  if (params.ignoreEos && opts.ignoreEosField) body.ignore_eos = true;
  if (params.topLogprobs !== undefined) {
    // chat: a flag and a count; completions: the count itself (OpenAI's legacy shape)
    if (params.api === 'chat') {
      body.logprobs = true;
      body.top_logprobs = params.topLogprobs;
    } else body.logprobs = params.topLogprobs;
  }
  const includeUsage = opts.includeUsage ?? true;
  let tokenAccounting: BuiltRequest['tokenAccounting'] = 'openai-final-usage';
  // stream_options is rejected by some servers on non-streaming requests.
  if (params.stream && includeUsage) {
    if (opts.continuousUsage) {
      body.stream_options = { include_usage: true, continuous_usage_stats: true };
      tokenAccounting = 'openai-continuous-usage';
    } else {
      body.stream_options = { include_usage: true };
    }
  }
  return {
    method: 'POST',
    path: params.api === 'chat' ? '/v1/chat/completions' : '/v1/completions',
    body,
    tokenAccounting,
  };
}
