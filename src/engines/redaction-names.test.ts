// Redaction by meaning over the engines' real option names: every flag of SGLang, vLLM, llama.cpp and TGI
// whose name contains "token" (collected from their argument parsers at source) stays readable unless it
// carries a credential, and every credential flag, key and environment variable is hidden.

import { describe, expect, it } from 'vitest';
import { isCredentialName, redactDeep } from '../core/redact.js';
import { redactArgv, redactEnv } from '../hosts/redact-env.js';
import { SGLANG_FLAGS } from './sglang-flags.js';
import { VLLM_FLAGS } from './vllm-flags.js';

/** llama.cpp common/arg.cpp (b7205 and b10573) options whose names contain "token". */
const LLAMACPP_TOKEN_FLAGS = [
  '--hf-token',
  '--image-max-tokens',
  '--image-min-tokens',
  '--mtmd-batch-max-tokens',
  '--print-token-count',
  '--tts-use-guide-tokens',
];
/** TGI launcher/src/main.rs (v3.3) Args fields whose names contain "token" or "key". */
const TGI_TOKEN_FLAGS = [
  'max_top_n_tokens',
  'max_input_tokens',
  'max_total_tokens',
  'max_batch_prefill_tokens',
  'max_batch_total_tokens',
  'max_waiting_tokens',
  'num_experts_per_token',
  'num_key_value_heads',
  'tokenizer_config_path',
  'ngrok_authtoken',
];
/** The ones among them that carry a credential. */
const CREDENTIAL_FLAGS = new Set(['hf_token', '--hf-token', 'ngrok_authtoken']);

const TOKEN_FLAGS = [
  ...[...SGLANG_FLAGS, ...VLLM_FLAGS].filter((f) => f.includes('token')),
  ...LLAMACPP_TOKEN_FLAGS,
  ...TGI_TOKEN_FLAGS,
];

describe('redaction by meaning', () => {
  it('collects a real list of engine flags mentioning tokens', () => {
    expect(TOKEN_FLAGS.length).toBeGreaterThan(50);
    for (const f of ['speculative_num_draft_tokens', 'max_num_batched_tokens', 'max_total_tokens'])
      expect(TOKEN_FLAGS).toContain(f);
  });

  it.each(TOKEN_FLAGS)('%s is judged by its words', (flag) => {
    expect(isCredentialName(flag)).toBe(CREDENTIAL_FLAGS.has(flag));
    const dashed = `--${flag.replace(/^-+/, '').replace(/_/g, '-')}`;
    const argv = redactArgv(['serve', dashed, '1024', `${dashed}=2048`]);
    if (CREDENTIAL_FLAGS.has(flag))
      expect(argv).toEqual(['serve', dashed, '<redacted>', `${dashed}=<redacted>`]);
    else expect(argv).toEqual(['serve', dashed, '1024', `${dashed}=2048`]);
  });

  it.each([
    '--api-key',
    '--hf-token',
    '--admin-api-key',
    '--ssl-keyfile-password',
    '--ngrok-authtoken',
    '--api-key-secret',
  ])('the credential flag %s is hidden in both spellings', (flag) => {
    expect(redactArgv(['x', flag, 'v4lue', `${flag}=v4lue`])).toEqual([
      'x',
      flag,
      '<redacted>',
      `${flag}=<redacted>`,
    ]);
  });

  it('hides credential environment variables and keeps configuration ones', () => {
    const env = {
      HF_TOKEN: 'x1',
      HUGGING_FACE_HUB_TOKEN: 'x2',
      OPENAI_API_KEY: 'x3',
      LLAMA_API_KEY: 'x4',
      AWS_SECRET_ACCESS_KEY: 'x5',
      AWS_SESSION_TOKEN: 'x6',
      NGROK_AUTHTOKEN: 'x7',
      DB_PASSWORD: 'x8',
      MY_SECRET: 'x9',
      BASIC_AUTH: 'u:p',
      TOKENIZERS_PARALLELISM: 'false',
      MAX_TOTAL_TOKENS: '8192',
      MAX_BATCH_PREFILL_TOKENS: '4096',
      SGLANG_ENABLE_SPEC_V2: '1',
      NUM_KEY_VALUE_HEADS: '8',
      SSH_AUTH_SOCK: '/tmp/agent.sock',
    };
    const out = redactEnv(env);
    for (const k of Object.keys(env).slice(0, 10)) expect({ k, v: out[k] }).toEqual({ k, v: '<redacted>' });
    for (const k of Object.keys(env).slice(10)) expect(out[k]).toBe(env[k as keyof typeof env]);
  });

  it('judges JSON keys and headers alike, camelCase included', () => {
    const doc = redactDeep({
      apiKey: 'a',
      'X-Api-Key': 'b',
      token: 'c',
      server_args: {
        speculative_num_draft_tokens: 4,
        max_total_tokens: 8192,
        kt_max_deferred_experts_per_token: 2,
      },
      api_key_env: 'MY_KEY',
    });
    expect(doc).toEqual({
      apiKey: '<redacted>',
      'X-Api-Key': '<redacted>',
      token: '<redacted>',
      server_args: {
        speculative_num_draft_tokens: 4,
        max_total_tokens: 8192,
        kt_max_deferred_experts_per_token: 2,
      },
      api_key_env: 'MY_KEY',
    });
  });
});
