// What a surface asks the generation path to serve (API, lengths, streaming options) and which
// stream fault hits it: the leaf the surfaces, the SSE renderer and the generation path share.

import type { StreamIdentity, StreamRenderer } from './sse-events.js';

export type ApiKind = 'native' | 'completions' | 'chat';

export interface GenerationSpec {
  api: ApiKind;
  model: string;
  promptTokens: number;
  /** The prompt's token ids when the surface tokenized it (the prefix cache keys on them). */
  promptIds?: number[];
  maxNewTokens: number;
  stream: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  /** Draft tokens proposed per verify step (speculative num draft tokens − 1); 0 without speculative decoding. */
  specGuessTokens: number;
  /** The flavour's own stream shapes (default SseEvents). */
  renderer?: (id: StreamIdentity) => StreamRenderer;
  /**
   * Set for greedy requests (temperature 0): the hash of the prompt their output is derived from
   * (greedy-tokens.ts), so the same prompt gets the same tokens; null for sampled requests.
   */
  greedyKey: number | null;
  /** Logprobs asked for (logprobs.ts logprobAsk): how many top tokens per position; null or absent: none. */
  topLogprobs?: number | null;
}

/** Which stream fault (if any) hits this request, decided at arrival. */
export type StreamFault = 'stall' | 'malformed' | 'reset' | null;
