import { describe, expect, it } from 'vitest';
import { redactDeep, redactString } from './redact.js';

describe('redaction', () => {
  it('removes header values, secret-named keys and known secret values, but keeps api_key_env', () => {
    const out = redactDeep(
      {
        target: {
          url: 'http://user:pw@host:1/x?api_key=abc123&y=1',
          headers: { 'X-Custom': 'plain' },
          api_key_env: 'MY_KEY',
        },
        note: 'server said: bad key mysecretvalue',
        token: 'anything',
      },
      ['mysecretvalue'],
    );
    expect(out.target.headers['X-Custom']).toBe('<redacted>');
    expect(out.target.api_key_env).toBe('MY_KEY');
    expect(out.target.url).toBe('http://<redacted>@host:1/x?api_key=<redacted>&y=1');
    expect(out.note).toBe('server said: bad key <redacted>');
    expect(out.token).toBe('<redacted>');
  });

  it('removes bearer tokens and key-shaped strings from free text', () => {
    expect(redactString('Authorization: Bearer abcdef123456')).toBe('Authorization: Bearer <redacted>');
    expect(redactString('key sk-proj-ABCDEFGH12345 and hf_abcdefghijkl')).toBe(
      'key <redacted> and <redacted>',
    );
    expect(redactString('nothing secret here')).toBe('nothing secret here');
    expect(redactString('Authorization: Token 9f8e7d6c5b4a3210')).toBe('Authorization: Token <redacted>');
    expect(redactString('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe('Authorization: Basic <redacted>');
  });

  it('leaves ordinary words alone in stored error messages', () => {
    const message =
      'no token arrived within the first-token timeout (300 s); Token counts differ; basic request failed';
    expect(redactString(message)).toBe(message);
    expect(redactDeep({ error: { code: 'BG_E_TTFT_TIMEOUT', message } })).toEqual({
      error: { code: 'BG_E_TTFT_TIMEOUT', message },
    });
  });

  it('keeps configuration that merely mentions tokens and hides list-valued and nested keys', () => {
    const doc = {
      server_args: { api_key: 'abc', admin_api_key: null, tp_size: 8, max_total_num_tokens: 1000 },
      tokenizer_path: 'meta/llama',
      max_num_batched_tokens: 8192,
      vllm: { api_key: ['sk'], hf_token: 'hf_abcdefghijk' },
    };
    expect(redactDeep(doc)).toEqual({
      server_args: { api_key: '<redacted>', admin_api_key: null, tp_size: 8, max_total_num_tokens: 1000 },
      tokenizer_path: 'meta/llama',
      max_num_batched_tokens: 8192,
      vllm: { api_key: '<redacted>', hf_token: '<redacted>' },
    });
  });
});
