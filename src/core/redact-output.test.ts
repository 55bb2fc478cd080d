import { describe, expect, it } from 'vitest';
import { redactOutputLine } from './redact-output.js';

describe('scrubbing a line of server output', () => {
  it('removes the values of credential-named fields as servers print them, keeping configuration', () => {
    expect(
      redactOutputLine(
        "non-default args: {'model': 'm', 'api_key': ['k1', 'k2'], 'max_num_batched_tokens': 8192}",
        [],
      ),
    ).toBe("non-default args: {'model': 'm', 'api_key': ['<redacted>'], 'max_num_batched_tokens': 8192}");
    expect(redactOutputLine("ServerArgs(model_path='m', api_key='abc', max_total_tokens=100)", [])).toBe(
      "ServerArgs(model_path='m', api_key='<redacted>', max_total_tokens=100)",
    );
    expect(redactOutputLine('{"hf_token": "abc", "tp_size": 8}', [])).toBe(
      '{"hf_token": "<redacted>", "tp_size": 8}',
    );
    expect(redactOutputLine('HF_TOKEN=abc python serve.py', [])).toBe('HF_TOKEN=<redacted> python serve.py');
  });

  it('removes known values, bearer credentials and key shapes, and leaves counts and empty fields readable', () => {
    expect(redactOutputLine('got Authorization: Bearer plainvalue1', [])).toBe(
      'got Authorization: Bearer <redacted>',
    );
    expect(redactOutputLine('--api-key myvalue9 sk-abcdefghij0123 hf_ABCDEFGHijkl', ['myvalue9'])).toBe(
      '--api-key <redacted> <redacted> <redacted>',
    );
    const plain = "#new-token: 12, token usage: 0.50, 'api_key': None, max_prefill_tokens=16384";
    expect(redactOutputLine(plain, [])).toBe(plain);
  });

  it('scans a 1 MB line without a separator in linear time', () => {
    const long = `${'a'.repeat(1_000_000)} api_key=x1`;
    expect(redactOutputLine(long, []).endsWith('api_key=<redacted>')).toBe(true);
  });
});
