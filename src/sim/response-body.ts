// The one-body (non-streaming) answers of a generation request: SGLang native (`text`, `meta_info`)
// and OpenAI completions / chat, with the usage the engines report.

import { monoNowMs } from '../core/clock.js';
import type { GenerationSpec } from './generation-spec.js';
import type { SimRequest } from './request.js';

function usage(req: SimRequest) {
  return {
    prompt_tokens: req.promptTokens,
    total_tokens: req.promptTokens + req.generated,
    completion_tokens: req.generated,
  };
}

function metaInfo(req: SimRequest, spec: GenerationSpec, done: boolean) {
  const meta: Record<string, unknown> = {
    id: req.id,
    finish_reason: done ? { type: 'length', length: req.generated } : null,
    prompt_tokens: req.promptTokens,
    weight_version: 'default',
    total_retractions: 0,
    completion_tokens: req.generated,
    cached_tokens: 0,
    e2e_latency: (monoNowMs() - req.arrivalMs) / 1000,
  };
  if (spec.speculative) {
    meta.spec_verify_ct = req.verifyCt;
    meta.spec_accept_length = req.verifyCt > 0 ? req.generated / req.verifyCt : 0;
  }
  return meta;
}

/** The whole response body once the request is done; `id` carries the API's prefix. */
export function completeBody(
  spec: GenerationSpec,
  r: SimRequest,
  text: string,
  id: string,
  created: number,
): unknown {
  if (spec.api === 'native') return { text, output_ids: [], meta_info: metaInfo(r, spec, true) };
  const base = { id, created, model: spec.model };
  if (spec.api === 'chat') {
    return {
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, reasoning_content: null, tool_calls: [] },
          logprobs: null,
          finish_reason: 'length',
          stop_reason: null,
        },
      ],
      usage: usage(r),
    };
  }
  return {
    ...base,
    object: 'text_completion',
    choices: [{ index: 0, text, logprobs: null, finish_reason: 'length', stop_reason: null }],
    usage: usage(r),
  };
}
