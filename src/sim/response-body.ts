// The one-body (non-streaming) answers of a generation request: SGLang native (`text`, `meta_info`)
// and OpenAI completions / chat, with the usage the engines report and, when asked, logprobs.

import { monoNowMs } from '../core/clock.js';
import type { GenerationSpec } from './generation-spec.js';
import { answerLogprobs, logprobFields } from './logprobs.js';
import type { SimRequest } from './request.js';

function usage(req: SimRequest) {
  return {
    prompt_tokens: req.promptTokens,
    total_tokens: req.promptTokens + req.generated,
    completion_tokens: req.generated,
  };
}

/** SGLang's meta_info of a finished request (tokenizer_manager.py), in its field order. */
function metaInfo(req: SimRequest, spec: GenerationSpec): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    id: req.id,
    finish_reason: { type: 'length', length: req.generated },
    prompt_tokens: req.promptTokens,
    weight_version: 'default',
    total_retractions: 0,
    reasoning_tokens: 0,
    completion_tokens: req.generated,
    cached_tokens: req.cachedTokens,
    e2e_latency: (monoNowMs() - req.arrivalMs) / 1000,
  };
  const drafted = req.verifyCt * spec.specGuessTokens;
  if (req.verifyCt > 0 && drafted > 0) {
    meta.spec_accept_rate = req.acceptedDraftTokens / drafted;
    meta.spec_accept_length = req.generated / req.verifyCt;
    meta.spec_accept_token_num = req.acceptedDraftTokens;
    meta.spec_draft_token_num = drafted;
    meta.spec_verify_ct = req.verifyCt;
  }
  return meta;
}

/** The whole response body once the request is done; `id` carries the API's prefix. */
export function completeBody(
  spec: GenerationSpec,
  r: SimRequest,
  output: { text: string; outputIds: number[] },
  id: string,
  created: number,
): unknown {
  const text = output.text;
  const asked = spec.topLogprobs ?? null;
  const lps =
    asked === null ? null : logprobFields(spec.api, answerLogprobs(spec.greedyKey, output.outputIds, asked));
  if (spec.api === 'native') {
    const meta = metaInfo(r, spec);
    return { text, output_ids: output.outputIds, meta_info: lps ? { ...meta, ...(lps as object) } : meta };
  }
  const base = { id, created, model: spec.model };
  if (spec.api === 'chat') {
    return {
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, reasoning_content: null, tool_calls: [] },
          logprobs: lps,
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
    choices: [{ index: 0, text, logprobs: lps, finish_reason: 'length', stop_reason: null }],
    usage: usage(r),
  };
}
