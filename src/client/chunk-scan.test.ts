import { describe, expect, it } from 'vitest';
import { emptyFacts, intAfter, scanChunk } from './chunk-scan.js';

const scan = (payload: string, native = false) => {
  const f = emptyFacts();
  const ok = scanChunk(payload, native, f);
  return { ok, ...f };
};

describe('scanChunk reads only what the metrics need', () => {
  it('chat content, with escaped quotes inside the text', () => {
    const f = scan('{"choices":[{"index":0,"delta":{"content":"say \\"hi\\""},"finish_reason":null}]}');
    expect(f.ok).toBe(true);
    expect(f.contentChars).toBe('say \\"hi\\"'.length);
    expect(f.reasoningChars).toBe(0);
    expect(f.finishReason).toBeNull();
  });

  it('reasoning under both spellings counts as reasoning, not content', () => {
    expect(scan('{"choices":[{"delta":{"reasoning_content":"hmm"}}]}')).toMatchObject({
      reasoningChars: 3,
      contentChars: 0,
    });
    expect(scan('{"choices":[{"delta":{"content":null,"reasoning":"ok"}}]}')).toMatchObject({
      reasoningChars: 2,
      contentChars: 0,
    });
  });

  it('an empty role chunk carries nothing', () => {
    expect(scan('{"choices":[{"delta":{"role":"assistant","content":""}}]}')).toMatchObject({
      contentChars: 0,
      reasoningChars: 0,
    });
  });

  it('usage on a chunk (continuous usage stats) and a usage-only final chunk', () => {
    expect(
      scan(
        '{"choices":[{"text":"a"}],"usage":{"prompt_tokens":7,"completion_tokens":3,"completion_tokens_details":null}}',
      ),
    ).toMatchObject({
      promptTokens: 7,
      completionTokens: 3,
      contentChars: 1,
    });
    expect(
      scan('{"choices":[],"usage":{"prompt_tokens":7,"total_tokens":12,"completion_tokens":5}}'),
    ).toMatchObject({ completionTokens: 5 });
    expect(scan('{"choices":[{"text":"a"}],"usage":null}')).toMatchObject({ completionTokens: -1 });
  });

  it('SGLang native meta_info with an object finish reason', () => {
    const f = scan(
      '{"text":"abc","meta_info":{"prompt_tokens":4,"completion_tokens":9,"spec_verify_ct":3,"finish_reason":{"type":"stop","matched":2}}}',
      true,
    );
    expect(f).toMatchObject({
      ok: true,
      promptTokens: 4,
      completionTokens: 9,
      specVerifySteps: 3,
      finishReason: 'stop',
    });
  });

  it('error events and malformed payloads', () => {
    expect(scan('{"error":{"message":"CUDA out of memory","code":500}}').errorMessage).toBe(
      'CUDA out of memory',
    );
    expect(scan('{"object":"error","message":"bad request","code":400}').errorMessage).toBe('bad request');
    expect(scan('{"choices":[{"text":"a"').ok).toBe(false);
    expect(scan('not json').ok).toBe(false);
    expect(scan('{"unrelated":1}').ok).toBe(false);
  });

  it('llama-server timings: verify steps = predicted_n − 1 − draft_n_accepted; absent without drafts', () => {
    const last =
      '{"choices":[],"usage":{"completion_tokens":64,"prompt_tokens":5,"total_tokens":69},' +
      '"timings":{"prompt_n":5,"predicted_n":64,"predicted_ms":80.1,"draft_n":69,"draft_n_accepted":40}}';
    expect(scan(last)).toMatchObject({ ok: true, completionTokens: 64, specVerifySteps: 23 });
    const plain = '{"choices":[],"usage":{"completion_tokens":8},"timings":{"prompt_n":2,"predicted_n":8}}';
    expect(scan(plain).specVerifySteps).toBe(-1);
  });

  it('llama-server cached prompt tokens: usage.prompt_tokens_details, else timings.cache_n', () => {
    const both =
      '{"choices":[],"usage":{"prompt_tokens":50,"prompt_tokens_details":{"cached_tokens":40}},"timings":{"cache_n":40,"prompt_n":10}}';
    expect(scan(both).cachedTokens).toBe(40);
    const timingsOnly =
      '{"choices":[{"finish_reason":"length","index":0,"delta":{}}],"timings":{"cache_n":31,"prompt_n":3}}';
    expect(scan(timingsOnly).cachedTokens).toBe(31);
    expect(scan('{"choices":[],"timings":{"prompt_n":3}}').cachedTokens).toBe(-1);
  });

  it('llama-server before cache_n (b4747): cached = usage.prompt_tokens − timings.prompt_n', () => {
    // the last event of b4747's /v1/completions stream for a prompt sent a second time (as measured)
    const b4747 =
      '{"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],"created":1796379296,' +
      '"model":"gpt-3.5-turbo","system_fingerprint":"b4747-c5d91a740","object":"text_completion",' +
      '"usage":{"completion_tokens":4,"prompt_tokens":58,"total_tokens":62},"id":"chatcmpl-x",' +
      '"timings":{"prompt_n":1,"prompt_ms":7.4,"prompt_per_token_ms":7.4,"prompt_per_second":135.1,' +
      '"predicted_n":4,"predicted_ms":290.2,"predicted_per_token_ms":72.5,"predicted_per_second":13.8}}';
    expect(scan(b4747).cachedTokens).toBe(57);
    // a prompt_n above the prompt is not a count of evaluated prompt tokens: nothing is derived
    expect(scan('{"choices":[],"usage":{"prompt_tokens":5},"timings":{"prompt_n":9}}').cachedTokens).toBe(-1);
  });

  it('intAfter finds the number after a key, from an offset', () => {
    expect(intAfter('{"a":{"n": 12},"b":{"n":7}}', '"n":', 10)).toBe(7);
    expect(intAfter('{"n":null}', '"n":')).toBe(-1);
  });
});
