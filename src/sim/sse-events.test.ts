import { describe, expect, it } from 'vitest';
import { type EventCounts, jsonString, SseEvents, type StreamIdentity } from './sse-events.js';

// The reference shapes: the engines' chunk objects, serialised the slow way.
const usage = (p: number, g: number) => ({ prompt_tokens: p, total_tokens: p + g, completion_tokens: g });
const data = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;

function referenceToken(s: StreamIdentity, piece: string, text: string, done: boolean, c: EventCounts) {
  if (s.api === 'native') {
    const meta: Record<string, unknown> = {
      id: s.id,
      finish_reason: done ? { type: 'length', length: c.generated } : null,
      prompt_tokens: c.promptTokens,
      weight_version: 'default',
      total_retractions: 0,
      reasoning_tokens: 0,
      completion_tokens: c.generated,
      cached_tokens: 0,
    };
    // SGLang adds e2e_latency and the speculative figures only to the finished request's meta_info
    if (done) meta.e2e_latency = c.e2eLatencyS;
    const drafted = c.verifyCt * s.specGuessTokens;
    if (done && c.verifyCt > 0 && drafted > 0) {
      meta.spec_accept_rate = c.acceptedDraftTokens / drafted;
      meta.spec_accept_length = c.generated / c.verifyCt;
      meta.spec_accept_token_num = c.acceptedDraftTokens;
      meta.spec_draft_token_num = drafted;
      meta.spec_verify_ct = c.verifyCt;
    }
    return data({ text, output_ids: [], meta_info: meta });
  }
  const choice =
    s.api === 'chat'
      ? {
          index: 0,
          delta: { content: piece },
          logprobs: null,
          finish_reason: done ? 'length' : null,
          stop_reason: null,
        }
      : { index: 0, text: piece, logprobs: null, finish_reason: done ? 'length' : null, stop_reason: null };
  return data({
    id: s.id,
    object: s.api === 'chat' ? 'chat.completion.chunk' : 'text_completion',
    created: s.created,
    model: s.model,
    choices: [choice],
    ...(s.continuousUsage ? { usage: usage(c.promptTokens, c.generated) } : {}),
  });
}

const identities: StreamIdentity[] = [];
for (const api of ['native', 'completions', 'chat'] as const)
  for (const continuousUsage of [false, true])
    for (const specGuessTokens of [0, 3])
      for (const model of ['org/Model-8B', 'modèle "quoted" \\ name\u2028'])
        identities.push({
          api,
          id: `${api}-0000002a`,
          created: 1764687000,
          model,
          continuousUsage,
          specGuessTokens,
        });

const counts: EventCounts[] = [
  {
    promptTokens: 7,
    cachedTokens: 0,
    generated: 1,
    verifyCt: 0,
    acceptedDraftTokens: 0,
    e2eLatencyS: 0.012345678901,
  },
  { promptTokens: 7, cachedTokens: 0, generated: 9, verifyCt: 3, acceptedDraftTokens: 6, e2eLatencyS: 1.5 },
  {
    promptTokens: 100000,
    cachedTokens: 0,
    generated: 4096,
    verifyCt: 1000,
    acceptedDraftTokens: 3096,
    e2eLatencyS: 1e-7,
  },
];
const pieces = [' bakelomi', ' bakelomi nuraseti', ' with "quotes" and \\ and \n newline \u0001'];

describe('pre-rendered SSE events', () => {
  it('are byte-identical to JSON.stringify of the engine chunk objects, for every API and option', () => {
    let checked = 0;
    for (const s of identities) {
      const ev = new SseEvents(s);
      for (const c of counts)
        for (const piece of pieces)
          for (const done of [false, true]) {
            const text = `earlier words${piece}`;
            expect(ev.tokenEvent(piece, text, done, c)).toBe(referenceToken(s, piece, text, done, c));
            checked++;
          }
      if (s.api !== 'native') {
        expect(ev.usageEvent(7, 9)).toBe(
          data({
            id: s.id,
            object: s.api === 'chat' ? 'chat.completion.chunk' : 'text_completion',
            created: s.created,
            model: s.model,
            choices: [],
            usage: usage(7, 9),
          }),
        );
      }
      if (s.api === 'chat') {
        expect(ev.chatRoleEvent(7)).toBe(
          data({
            id: s.id,
            object: 'chat.completion.chunk',
            created: s.created,
            model: s.model,
            choices: [
              { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
            ],
            ...(s.continuousUsage ? { usage: usage(7, 0) } : {}),
          }),
        );
      }
    }
    expect(checked).toBe(identities.length * counts.length * pieces.length * 2);
  });

  it('escapes text exactly as JSON does whenever escaping is needed', () => {
    for (const s of [
      'plain words',
      'a"b',
      'back\\slash',
      'tab\there',
      '\u0000',
      '\ud83d\ude00',
      'lone \ud800',
      'é ü',
    ])
      expect(jsonString(s)).toBe(JSON.stringify(s));
  });
});
