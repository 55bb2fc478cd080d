// The opt-in reply capture, through the real client against the simulator: the text captured is the
// reply the server generated, and sent back as history it is what the server's prefix cache recognises.

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../engines/index.js';
import type { ChatMessage } from '../engines/types.js';
import type { RequestTruth } from '../sim/simulator.js';
import { simulatorsClosedAfterEach } from '../sim/testing/fast-sim.js';
import { chunkContent } from './reply-text.js';
import { streamRequest } from './stream-request.js';
import { planDefaultTimeouts } from './test-support/timeouts.js';

const fast = simulatorsClosedAfterEach();

describe('reply text capture', () => {
  it('reads the visible text of chat and completions chunks, and nothing else', () => {
    expect(chunkContent('{"choices":[{"index":0,"delta":{"content":" vo ra"}}]}')).toBe(' vo ra');
    expect(chunkContent('{"choices":[{"index":0,"text":" ke \\"lo\\""}]}')).toBe(' ke "lo"');
    expect(chunkContent('{"choices":[{"index":0,"delta":{"role":"assistant"}}]}')).toBe('');
    expect(chunkContent('{"choices":[],"usage":{"prompt_tokens":3}}')).toBe('');
    expect(chunkContent('{"choices":[{"delta":{"content":')).toBe('');
  });

  it('captures the streamed reply verbatim, so the next turn’s history hits the server’s prefix cache', async () => {
    const { h } = await fast.sim();
    const adapter = getAdapter('sglang');
    const send = (messages: ChatMessage[], replyText?: string[]) =>
      streamRequest({
        baseUrl: h.url,
        request: adapter.requestFor({
          api: 'chat',
          model: 'm',
          prompt: '',
          messages,
          maxTokens: 12,
          ignoreEos: true,
          temperature: 0.7,
          stream: true,
        }),
        originMs: performance.now(),
        id: 0,
        levelIndex: 0,
        warmup: false,
        requestedOutputTokens: 12,
        timeouts: planDefaultTimeouts(),
        replyText,
      });
    const first: ChatMessage[] = [{ role: 'user', content: 'one two three four five six seven eight' }];
    const reply: string[] = [];
    const r1 = await send(first, reply);
    expect(r1.error).toBeNull();
    const text = reply.join('');
    expect(text.trim().split(/\s+/)).toHaveLength(12);
    expect(r1.outputTokensServer).toBe(12);
    const r2 = await send([
      ...first,
      { role: 'assistant', content: text },
      { role: 'user', content: 'nine ten' },
    ]);
    expect(r2.error).toBeNull();
    const truth = (await (await fetch(`${h.url}/_sim/requests`)).json()) as { requests: RequestTruth[] };
    const [t1, t2] = truth.requests;
    // turn 2 starts with turn 1's prompt and its reply: the cache holds both (the reply as generated)
    // simulated template `<|role|> content`: + the 12 reply words, `<|user|> nine ten <|assistant|>`
    expect(t2.promptTokens).toBe(t1.promptTokens + 12 + 4);
    expect(t2.cachedTokens).toBe(t1.promptTokens + t1.completionTokens);
  });
});
