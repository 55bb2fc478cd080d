// Pre-serialised SSE events of one streaming generation: the JSON around the token text is rendered
// once per stream, so each event costs a few string concatenations instead of an object and a
// JSON.stringify. The bytes equal JSON.stringify of the engines' chunk objects (see the test).

import type { ApiKind } from './generation-spec.js';

/** What an event needs from the request at the moment it is written. */
export interface EventCounts {
  promptTokens: number;
  /** Prompt tokens served from the prefix cache (native meta_info.cached_tokens). */
  cachedTokens: number;
  /** Tokens generated so far, including this event's. */
  generated: number;
  verifyCt: number;
  /** Draft tokens accepted so far (native spec_accept_token_num). */
  acceptedDraftTokens: number;
  /** Seconds since arrival (native meta_info.e2e_latency). */
  e2eLatencyS: number;
  /** Draft tokens proposed so far (llama-server timings.draft_n). */
  draftTokens?: number;
  /** Wall ms from arrival to the first token, and from the first token to now (llama-server timings). */
  promptMs?: number;
  predictedMs?: number;
}

/** How one stream's events are rendered: SseEvents (SGLang, vLLM, OpenAI), or a flavour's own. */
export interface StreamRenderer {
  chatRoleEvent(promptTokens: number): string;
  tokenEvent(piece: string, fullText: string, done: boolean, c: EventCounts): string;
  usageEvent(promptTokens: number, completionTokens: number, c?: EventCounts): string;
}

export interface StreamIdentity {
  api: ApiKind;
  /** Full response id as sent (`cmpl-…`, `chatcmpl-…`, or the bare native id). */
  id: string;
  created: number;
  model: string;
  continuousUsage: boolean;
  /** Draft tokens per verify step; > 0 adds the speculative fields to the final native meta_info. */
  specGuessTokens: number;
}

/**
 * The speculative fields SGLang adds to a finished request's meta_info (tokenizer_manager.py
 * _calculate_spec_decoding_metrics), in its order; '' when it adds none.
 */
export function nativeSpecFieldsJson(c: EventCounts, guessTokens: number): string {
  const drafted = c.verifyCt * guessTokens;
  if (c.verifyCt <= 0 || drafted <= 0) return '';
  return `,"spec_accept_rate":${c.acceptedDraftTokens / drafted},"spec_accept_length":${c.generated / c.verifyCt},"spec_accept_token_num":${c.acceptedDraftTokens},"spec_draft_token_num":${drafted},"spec_verify_ct":${c.verifyCt}`;
}

const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

/** JSON string literal; token text from the synthetic vocabulary needs no escaping and skips stringify. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function usageJson(promptTokens: number, completionTokens: number): string {
  return `{"prompt_tokens":${promptTokens},"total_tokens":${promptTokens + completionTokens},"completion_tokens":${completionTokens}}`;
}

/** Renders every SSE event of one stream from templates built once. */
export class SseEvents implements StreamRenderer {
  private readonly id: StreamIdentity;
  /** `data: {"id":…,"object":…,"created":…,"model":…,` shared by OpenAI-style chunks. */
  private readonly head: string;
  private readonly nativeIdJson: string;

  constructor(id: StreamIdentity) {
    this.id = id;
    const object = id.api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    this.head = `data: {"id":${jsonString(id.id)},"object":"${object}","created":${id.created},"model":${jsonString(id.model)},`;
    this.nativeIdJson = jsonString(id.id);
  }

  /** Chat only: the opening event with the assistant role, sent before the first token event. */
  chatRoleEvent(promptTokens: number): string {
    const usage = this.id.continuousUsage ? `,"usage":${usageJson(promptTokens, 0)}` : '';
    return `${this.head}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${usage}}\n\n`;
  }

  /**
   * One token event. `piece` is the text this event adds; `fullText` the text so far (native streams
   * send the cumulative text, as SGLang does).
   */
  tokenEvent(piece: string, fullText: string, done: boolean, c: EventCounts): string {
    const api = this.id.api;
    if (api === 'native') {
      // e2e_latency and the speculative fields come only with the finished request
      const finish = done ? `{"type":"length","length":${c.generated}}` : 'null';
      const end = done
        ? `,"e2e_latency":${c.e2eLatencyS}${nativeSpecFieldsJson(c, this.id.specGuessTokens)}`
        : '';
      return `data: {"text":${jsonString(fullText)},"output_ids":[],"meta_info":{"id":${this.nativeIdJson},"finish_reason":${finish},"prompt_tokens":${c.promptTokens},"weight_version":"default","total_retractions":0,"reasoning_tokens":0,"completion_tokens":${c.generated},"cached_tokens":${c.cachedTokens}${end}}}\n\n`;
    }
    const finish = done ? '"length"' : 'null';
    const usage = this.id.continuousUsage ? `,"usage":${usageJson(c.promptTokens, c.generated)}` : '';
    const choice =
      api === 'chat'
        ? `{"index":0,"delta":{"content":${jsonString(piece)}},"logprobs":null,"finish_reason":${finish},"stop_reason":null}`
        : `{"index":0,"text":${jsonString(piece)},"logprobs":null,"finish_reason":${finish},"stop_reason":null}`;
    return `${this.head}"choices":[${choice}]${usage}}\n\n`;
  }

  /** The final usage-only event (`stream_options.include_usage`). */
  usageEvent(promptTokens: number, completionTokens: number): string {
    return `${this.head}"choices":[],"usage":${usageJson(promptTokens, completionTokens)}}\n\n`;
  }
}
