import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';
import { llamacppAdapter } from './llamacpp.js';
import { openaiAdapter } from './openai.js';
import { tgiAdapter } from './tgi.js';
import { parseRustDebugStruct } from './tgi-log.js';

const base = {
  model: 'm',
  prompt: 'p',
  maxTokens: 8,
  ignoreEos: true,
  temperature: 0,
  stream: true,
} as const;

describe('llama.cpp adapter', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer({
      '/props': {
        default_generation_settings: { n_ctx: 8192, params: { temperature: 0.8, 'speculative.n_max': 16 } },
        total_slots: 4,
        model_alias: 'qwen-7b',
        model_path: '/models/qwen2.5-7b-q4_k_m.gguf',
        chat_template: '{% for m in messages %}...{% endfor %}',
        build_info: 'b5123-abcdef0',
      },
      '/health': { status: 'ok' },
      '/slots': {
        status: 501,
        body: '{"error":{"code":501,"message":"This server does not support slots endpoint.","type":"not_supported_error"}}',
      },
      '/v1/models': { object: 'list', data: [{ id: 'qwen-7b', object: 'model', owned_by: 'llamacpp' }] },
    });
  });
  afterAll(() => server.close());

  it('reads /props, /health and tolerates a disabled /slots', async () => {
    const { facts, raw } = await llamacppAdapter.readLive(createTargetHttp(server.url));
    expect(facts.engine_version).toEqual({ value: 'b5123-abcdef0', source: 'GET /props' });
    expect(facts.model.value).toBe('/models/qwen2.5-7b-q4_k_m.gguf');
    expect(facts.served_model_name.value).toBe('qwen-7b');
    expect(facts.context_length.value).toBe(8192);
    expect(facts.max_running_requests.value).toBe(4);
    expect(facts['llamacpp.params.speculative.n_max'].value).toBe(16);
    expect(facts['llamacpp.health_status'].value).toBe(200);
    expect(raw['/slots']).toBeUndefined();
    expect(await llamacppAdapter.detect(createTargetHttp(server.url))).toBe(true);
  });

  it('reads short flags from the llama-server command line', () => {
    const f = llamacppAdapter.readProcess(
      [
        'llama-server',
        '-m',
        '/m.gguf',
        '-c',
        '16384',
        '-np',
        '8',
        '--alias',
        'x',
        '-md',
        '/d.gguf',
        '--api-key',
        'sk-1',
      ],
      null,
      'pid 9',
    );
    expect(f.model.value).toBe('/m.gguf');
    expect(f.max_running_requests.value).toBe(8);
    expect(f['speculative.draft_model'].value).toBe('/d.gguf');
    expect(f['llamacpp.ctx_size'].value).toBe(16384);
    expect(JSON.stringify(f)).not.toContain('sk-1');
  });

  it('finds the build line as the start marker and the listening line as ready', () => {
    const log = [
      'build: 5000 (aaaaaaa) with cc (GCC) 13 for x86_64-linux-gnu',
      'main: server is listening on http://127.0.0.1:8080 - starting the main loop',
      'build: 5123 (abcdef0) with cc (GCC) 13 for x86_64-linux-gnu',
      'llama_context: n_ctx         = 32768',
      'main: server is listening on http://127.0.0.1:8080 - starting the main loop',
      'Segmentation fault (core dumped)',
    ].join('\n');
    const r = llamacppAdapter.readLog(log, 'l.log');
    expect(r.startMarkerLines).toEqual([1, 3]);
    expect(r.readyLine).toBe(5);
    expect(r.facts.engine_version.value).toBe('b5123-abcdef0');
    expect(r.facts['llamacpp.n_ctx'].value).toBe(32768);
    expect(r.crashes.map((c) => c.line)).toEqual([6]);
  });

  it('passes ignore_eos and asks only for a final usage chunk', () => {
    const r = llamacppAdapter.requestFor({ ...base, api: 'chat' });
    expect(r.body.ignore_eos).toBe(true);
    expect(r.body.stream_options).toEqual({ include_usage: true });
    expect(r.tokenAccounting).toBe('openai-final-usage');
  });
});

describe('TGI adapter', () => {
  it('reads /info with older and newer field names', async () => {
    const server = await startFixtureServer({
      '/info': {
        model_id: 'meta-llama/Llama-3.1-8B-Instruct',
        model_sha: 'abc',
        model_dtype: 'torch.float16',
        max_concurrent_requests: 128,
        max_input_length: 4095,
        max_total_tokens: 4096,
        max_batch_size: null,
        router: 'text-generation-router',
        version: '2.0.4',
      },
    });
    try {
      const http = createTargetHttp(server.url);
      const { facts } = await tgiAdapter.readLive(http);
      expect(facts.engine_version.value).toBe('2.0.4');
      expect(facts.model.value).toBe('meta-llama/Llama-3.1-8B-Instruct');
      expect(facts.context_length.value).toBe(4096);
      expect(facts.dtype.value).toBe('float16'); // canonical form of TGI's torch.float16;
      expect(facts['tgi.max_input_tokens'].value).toBe(4095);
      expect(facts['tgi.max_concurrent_requests'].value).toBe(128);
      expect(await tgiAdapter.detect(http)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("parses the launcher's Args { ... } Debug line, unwrapping Some(...)", () => {
    const line =
      '2024-05-01T10:00:00.000000Z  INFO text_generation_launcher: Args { model_id: "meta-llama/Llama-3.1-8B", revision: None, sharded: None, num_shard: Some(2), quantize: Some(Awq), speculate: Some(3), dtype: None, max_total_tokens: Some(8192), max_batch_size: None, hostname: "0.0.0.0", port: 80, env: false }';
    const r = tgiAdapter.readLog(
      `${line}\n2024-05-01T10:01:00.000000Z  INFO text_generation_router::server: router/src/server.rs:1: Connected\n`,
      'tgi.log',
    );
    expect(r.startMarkerLines).toEqual([1]);
    expect(r.startMarkerTimes).toEqual(['2024-05-01T10:00:00.000Z']);
    expect(r.readyLine).toBe(2);
    expect(r.facts.tp_size.value).toBe(2);
    expect(r.facts.quantization.value).toBe('awq'); // canonical lower case of the Rust enum Awq;
    expect(r.facts['speculative.num_steps'].value).toBe(3);
    expect(r.facts.context_length.value).toBe(8192);
    expect(r.facts['tgi.revision'].value).toBeNull();
    expect(parseRustDebugStruct('{ a: "x: y", b: Some(1)').complete).toBe(false);
  });

  it('reads launcher flags and environment', () => {
    const f = tgiAdapter.readProcess(
      ['text-generation-launcher', '--model-id', 'm', '--num-shard', '4'],
      { QUANTIZE: 'awq', NUM_SHARD: '2' },
      'pid 3',
    );
    expect(f.tp_size.value).toBe(4);
    expect(f.quantization.value).toBe('awq');
  });

  it('sends no ignore_eos and asks for a final usage chunk', () => {
    const r = tgiAdapter.requestFor({ ...base, api: 'chat' });
    expect(r.body.ignore_eos).toBeUndefined();
    expect(r.body.stream_options).toEqual({ include_usage: true });
  });
});

describe('generic OpenAI adapter', () => {
  it('reads served model names from /v1/models and nothing else', async () => {
    const server = await startFixtureServer({
      '/v1/models': { object: 'list', data: [{ id: 'gpt-x', object: 'model', owned_by: 'acme' }] },
    });
    try {
      const { facts } = await openaiAdapter.readLive(createTargetHttp(server.url));
      expect(facts.served_model_name).toEqual({ value: 'gpt-x', source: 'GET /v1/models' });
      expect(facts.tp_size).toBeUndefined();
      expect(server.requested).toEqual(['/v1/models']);
    } finally {
      await server.close();
    }
  });

  it('builds a plain OpenAI request', () => {
    const r = openaiAdapter.requestFor({ ...base, api: 'completions' });
    expect(r.body).toEqual({
      model: 'm',
      prompt: 'p',
      max_tokens: 8,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});
