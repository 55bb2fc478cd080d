// llama-server's SSE shapes for the llamacpp flavour (observed on commit 3f545becc): one event per
// token, `chatcmpl-` ids and `system_fingerprint` on every event, usage and timings at the end.

import { LLAMACPP_BUILD_INFO } from './llamacpp-args.js';
import type { EventCounts, StreamIdentity, StreamRenderer } from './sse-events.js';

/** `timings` of the last event: prompt and generation times, and the draft counts when speculating. */
function timingsJson(c: EventCounts, speculative: boolean): string {
  const promptMs = c.promptMs ?? 0;
  const predictedMs = c.predictedMs ?? 0;
  const rate = (ms: number, n: number) => (ms > 0 ? (1000 * n) / ms : 0);
  const promptN = c.promptTokens - c.cachedTokens; // llama.cpp counts only the tokens it evaluated
  let s = `{"cache_n":${c.cachedTokens},"prompt_n":${promptN},"prompt_ms":${promptMs},"prompt_per_token_ms":${promptN > 0 ? promptMs / promptN : 0},"prompt_per_second":${rate(promptMs, promptN)},"predicted_n":${c.generated},"predicted_ms":${predictedMs},"predicted_per_token_ms":${c.generated > 0 ? predictedMs / c.generated : 0},"predicted_per_second":${rate(predictedMs, c.generated)}`;
  if (speculative) s += `,"draft_n":${c.draftTokens ?? 0},"draft_n_accepted":${c.acceptedDraftTokens ?? 0}`;
  return `${s}}`;
}

function usageJson(c: EventCounts): string {
  return `{"completion_tokens":${c.generated},"prompt_tokens":${c.promptTokens},"total_tokens":${c.promptTokens + c.generated},"prompt_tokens_details":{"cached_tokens":${c.cachedTokens}}}`;
}

/**
 * llama-server's SSE shapes: one event per token even when a verify step accepts several drafts;
 * completions end with an empty-text event carrying finish_reason, usage and timings; chat opens with
 * `delta {role, content: null}`, ends with an empty delta carrying the finish reason and then (with
 * `stream_options.include_usage`) a separate `choices: []` event with usage and timings. Every event
 * carries `system_fingerprint`; ids are `chatcmpl-…` for both APIs.
 */
export class LlamacppEvents implements StreamRenderer {
  private readonly tail: string;
  private readonly chat: boolean;
  private readonly includeUsage: boolean;
  private readonly speculative: boolean;

  constructor(id: StreamIdentity, includeUsage: boolean) {
    this.chat = id.api === 'chat';
    this.includeUsage = includeUsage;
    this.speculative = id.specGuessTokens > 0;
    const object = this.chat ? 'chat.completion.chunk' : 'text_completion';
    const rid = `chatcmpl-${id.id.replace(/^(?:chat)?cmpl-/, '')}`;
    this.tail = `"created":${id.created},"model":${JSON.stringify(id.model)},"system_fingerprint":"${LLAMACPP_BUILD_INFO}","object":"${object}","id":"${rid}"`;
  }

  private choice(text: string | null, finish: string | null): string {
    const f = finish === null ? 'null' : `"${finish}"`;
    if (this.chat) {
      const delta = text === null ? '{}' : `{"content":${JSON.stringify(text)}}`;
      return `{"finish_reason":${f},"index":0,"delta":${delta}}`;
    }
    return `{"text":${JSON.stringify(text ?? '')},"index":0,"logprobs":null,"finish_reason":${f}}`;
  }

  chatRoleEvent(_promptTokens: number): string {
    return `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],${this.tail}}\n\n`;
  }

  tokenEvent(piece: string, _fullText: string, done: boolean, c: EventCounts): string {
    let out = '';
    // one event per token: the synthetic vocabulary's tokens are space-prefixed words
    for (const token of piece.match(/ [^ ]*/g) ?? [piece])
      out += `data: {"choices":[${this.choice(token, null)}],${this.tail}}\n\n`;
    if (!done) return out;
    if (this.chat) {
      const timings = this.includeUsage ? '' : `,"timings":${timingsJson(c, this.speculative)}`;
      return `${out}data: {"choices":[${this.choice(null, 'length')}],${this.tail}${timings}}\n\n`;
    }
    return `${out}data: {"choices":[${this.choice('', 'length')}],${this.tail},"usage":${usageJson(c)},"timings":${timingsJson(c, this.speculative)}}\n\n`;
  }

  /** Chat only (completions carry usage on their last event): the separate usage and timings event. */
  usageEvent(promptTokens: number, completionTokens: number, c?: EventCounts): string {
    if (!this.chat) return '';
    const counts = c ?? {
      promptTokens,
      cachedTokens: 0,
      generated: completionTokens,
      verifyCt: 0,
      acceptedDraftTokens: 0,
      e2eLatencyS: 0,
    };
    return `data: {"choices":[],${this.tail},"usage":${usageJson(counts)},"timings":${timingsJson(counts, this.speculative)}}\n\n`;
  }
}
