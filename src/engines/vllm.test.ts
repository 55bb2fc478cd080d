import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';
import { vllmAdapter } from './vllm.js';

const METRICS = [
  '# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig',
  '# TYPE vllm:cache_config_info gauge',
  'vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",gpu_memory_utilization="0.9",num_gpu_blocks="27033"} 1.0',
  '# TYPE vllm:spec_decode_num_drafts_total counter',
  'vllm:spec_decode_num_drafts_total{engine="0",model_name="llama"} 1.0e+03',
  'vllm:spec_decode_num_drafts_total{engine="1",model_name="llama"} 500',
  'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="llama"} 4500',
  'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="llama"} 2.7e3',
  'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="llama",position="0"} 1200',
  'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="llama",position="1"} 900',
  'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="llama",position="0"} 300',
  'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="llama",position="2"} 300',
  'vllm:generation_tokens_total{engine="0",model_name="llama"} 4.2e+03',
].join('\n');

const ENGINE_LINE =
  "(EngineCore_DP0 pid=178) INFO 11-28 23:05:46 [core.py:97] Initializing a V1 LLM engine (v0.11.0) with config: model='/models/Llama-3.1-8B', speculative_config=SpeculativeConfig(method='eagle3', model='/models/eagle3-llama', num_spec_tokens=3), tokenizer='/models/Llama-3.1-8B', skip_tokenizer_init=False, tokenizer_mode=auto, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=llama-8b, enable_prefix_caching=True, compilation_config={'level': 3, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'cudagraph_capture_sizes': [512, 256, 1]}";

function wrap(line: string, width: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < line.length; i += width) out.push(line.slice(i, i + width));
  return out;
}

const LOG = [
  '\u001b[32mINFO\u001b[0m 11-27 10:00:00 [api_server.py:1] vLLM API server version 0.10.0',
  "INFO 11-27 10:00:00 [utils.py:1] non-default args: {'model': '/models/old', 'max_num_seqs': 8}",
  '(APIServer pid=1) INFO:     Application startup complete.',
  '(APIServer pid=13) \u001b[32mINFO\u001b[0m 11-28 23:05:40 [api_server.py:1805] vLLM API server version 0.11.0',
  ...wrap(
    "(APIServer pid=13) INFO 11-28 23:05:40 [utils.py:233] non-default args: {'model_tag': '/models/Llama-3.1-8B', 'host': '0.0.0.0', 'api_key': ['sk-secret-1'], 'model': '/models/Llama-3.1-8B', 'served_model_name': ['llama-8b'], 'tensor_parallel_size': 2, 'max_num_seqs': 64, 'speculative_config': {'method': 'eagle3', 'model': '/models/eagle3-llama', 'num_speculative_tokens': 3}}",
    120,
  ),
  ...wrap(ENGINE_LINE, 120),
  '(APIServer pid=13) INFO 11-28 23:06:40 [launcher.py:46] Route: /v1/completions, Methods: POST',
  '(APIServer pid=13) INFO:     Application startup complete.',
  '(EngineCore_DP0 pid=178) ERROR 11-28 23:07:00 [core.py:1] EngineCore encountered a fatal error.',
  '(EngineCore_DP0 pid=178) Traceback (most recent call last):',
  '(EngineCore_DP0 pid=178)   File "/vllm/v1/engine/core.py", line 700, in run_engine_core',
  '(EngineCore_DP0 pid=178)     engine_core.run_busy_loop()',
  '(EngineCore_DP0 pid=178) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
].join('\n');

describe('vllm readLive', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer({
      '/version': { version: '0.11.0' },
      '/v1/models': {
        object: 'list',
        data: [
          {
            id: 'llama-8b',
            object: 'model',
            owned_by: 'vllm',
            root: '/models/Llama-3.1-8B',
            parent: null,
            max_model_len: 32768,
          },
        ],
      },
      '/metrics': METRICS,
    });
  });
  afterAll(() => server.close());

  it('reads version, model identity, context length and cache config labels', async () => {
    const { facts, raw } = await vllmAdapter.readLive(createTargetHttp(server.url));
    expect(facts.engine.value).toBe('vllm');
    expect(facts.engine_version).toEqual({ value: '0.11.0', source: 'GET /version' });
    expect(facts.served_model_name.value).toBe('llama-8b');
    expect(facts.model.value).toBe('/models/Llama-3.1-8B');
    expect(facts.context_length.value).toBe(32768);
    expect(facts['vllm.cache_config.block_size'].value).toBe(16);
    expect(facts['vllm.cache_config.enable_prefix_caching'].value).toBe(true);
    expect(facts['vllm.cache_config.num_gpu_blocks'].source).toBe('GET /metrics vllm:cache_config_info');
    expect(facts.tp_size).toBeUndefined();
    expect(Object.keys(raw)).toContain('/version');
  });

  it('reads the effective config from /server_info when dev mode is on', async () => {
    const dev = await startFixtureServer({
      '/version': { version: '0.11.0' },
      '/server_info': {
        vllm_config: ENGINE_LINE.slice(ENGINE_LINE.indexOf('model=')),
        vllm_env: { VLLM_API_KEY: 'sk-dev-secret', VLLM_SERVER_DEV_MODE: '1' },
      },
    });
    try {
      const { facts, raw } = await vllmAdapter.readLive(createTargetHttp(dev.url));
      expect(facts.tp_size).toEqual({ value: 2, source: 'GET /server_info' });
      expect(facts['speculative.algorithm'].value).toBe('EAGLE3');
      expect(facts['speculative.num_steps'].value).toBe(3);
      expect(facts.dtype.value).toBe('bfloat16');
      expect(JSON.stringify(raw)).not.toContain('sk-dev-secret');
    } finally {
      await dev.close();
    }
  });

  it('is detected from /version', async () => {
    expect(await vllmAdapter.detect(createTargetHttp(server.url))).toBe(true);
  });
});

describe('vllm readLog', () => {
  const r = vllmAdapter.readLog(LOG, 'vllm.log');

  it('finds one start per server start, even when args follow the version line', () => {
    expect(r.startMarkerLines).toEqual([1, 4]);
    expect(r.startRegionFirstLines).toEqual([1, 4]);
    expect(r.startMarkerTimes[1]).toMatch(/-11-28T23:05:40\.000Z$/);
    const lines = LOG.split('\n');
    expect(r.readyLine).toBe(lines.indexOf('(APIServer pid=13) INFO:     Application startup complete.') + 1);
  });

  it('parses the wrapped engine-config line (effective values) and non-default args (the rest)', () => {
    const f = r.facts;
    expect(f.engine_version.value).toBe('0.11.0');
    expect(f.model.value).toBe('/models/Llama-3.1-8B');
    expect(f.served_model_name.value).toBe('llama-8b');
    expect(f.tp_size.value).toBe(2);
    expect(f.dtype.value).toBe('bfloat16');
    expect(f.context_length.value).toBe(32768);
    expect(f['speculative.algorithm'].value).toBe('EAGLE3');
    expect(f['speculative.draft_model'].value).toBe('/models/eagle3-llama');
    expect(f['speculative.num_steps'].value).toBe(3);
    expect(f.max_running_requests).toEqual({ value: 64, source: 'vllm.log:5' });
    expect(f['vllm.api_key'].value).toBe('<redacted>');
    expect(JSON.stringify(f)).not.toContain('sk-secret-1');
  });

  it('reports the traceback after the last start with its final exception line', () => {
    expect(r.crashes).toHaveLength(1);
    expect(r.crashes[0].excerpt).toContain('torch.OutOfMemoryError: CUDA out of memory');
  });

  it('takes the start and version from the start-up logo current vLLM prints', () => {
    const logo = (time: string, version: string) =>
      [
        `(APIServer pid=7) INFO ${time} [utils.py:344] `,
        `(APIServer pid=7) INFO ${time} [utils.py:344]        █     █     █▄   ▄█`,
        `(APIServer pid=7) INFO ${time} [utils.py:344]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version ${version}`,
        `(APIServer pid=7) INFO ${time} [utils.py:344]   █▄█▀ █     █     █     █  model   /m`,
      ].join('\n');
    const text = [
      logo('12-01 09:00:00', '0.17.1'),
      "(APIServer pid=7) INFO 12-01 09:00:01 [utils.py:233] non-default args: {'model': '/m', 'tensor_parallel_size': 2}",
      logo('12-01 10:00:00', '0.18.0'),
      "(APIServer pid=7) INFO 12-01 10:00:01 [utils.py:233] non-default args: {'model': '/m', 'tensor_parallel_size': 4}",
    ].join('\n');
    const r2 = vllmAdapter.readLog(text, 'logo.log');
    expect(r2.startMarkerLines).toEqual([3, 8]);
    expect(r2.facts.engine_version.value).toBe('0.18.0');
    expect(r2.facts.tp_size.value).toBe(4);
  });

  it('survives a truncated non-default args line', () => {
    const cut = vllmAdapter.readLog(
      "INFO 11-28 23:05:40 [utils.py:233] non-default args: {'model': '/m', 'tensor_parallel_size': 4, 'max_num",
      'c.log',
    );
    expect(cut.startMarkerLines).toEqual([1]);
    expect(cut.facts.tp_size.value).toBe(4);
    expect(cut.facts['vllm.non_default_args_truncated'].value).toBe(true);
  });
});

describe('vllm readProcess', () => {
  it('reads `vllm serve MODEL` flags, short spellings and the JSON speculative config', () => {
    const f = vllmAdapter.readProcess(
      [
        '/usr/bin/python3',
        '/usr/local/bin/vllm',
        'serve',
        '/models/Llama',
        '-tp',
        '8',
        '--max-num-seqs',
        '128',
        '--speculative-config',
        '{"method": "eagle3", "model": "/models/eagle", "num_speculative_tokens": 4}',
        '--enable-prefix-caching',
      ],
      { VLLM_SERVER_DEV_MODE: '1' },
      'pid 7',
    );
    expect(f.model.value).toBe('/models/Llama');
    expect(f.tp_size.value).toBe(8);
    expect(f.max_running_requests.value).toBe(128);
    expect(f['speculative.algorithm'].value).toBe('EAGLE3');
    expect(f['speculative.num_steps'].value).toBe(4);
    expect(f['vllm.enable_prefix_caching'].value).toBe(true);
    expect(f.served_model_name.inferred).toBe(true);
  });

  it('reads the api_server module entry point', () => {
    const f = vllmAdapter.readProcess(
      ['python', '-m', 'vllm.entrypoints.openai.api_server', '--model', 'm', '--tensor-parallel-size=2'],
      null,
      'cmd',
    );
    expect(f.model.value).toBe('m');
    expect(f.tp_size.value).toBe(2);
    expect(f['speculative.algorithm'].value).toBeNull();
  });
});

describe('vllm specCounters', () => {
  it('sums counters over engines and per-position counts by position', () => {
    expect(vllmAdapter.specCounters(METRICS)).toEqual({
      drafts: 1500,
      verifySteps: 1500,
      draftTokens: 4500,
      acceptedTokens: 2700,
      acceptedTokensPerPosition: [1500, 900, 300],
      generationTokens: 4200,
    });
  });

  it('returns null without speculative metrics', () => {
    expect(vllmAdapter.specCounters('vllm:num_requests_running 0\n')).toBeNull();
  });
});

describe('vllm requestFor', () => {
  it('asks for continuous usage and top-level ignore_eos', () => {
    const r = vllmAdapter.requestFor({
      api: 'completions',
      model: 'llama-8b',
      prompt: 'p',
      maxTokens: 16,
      ignoreEos: true,
      temperature: 0.5,
      stream: true,
    });
    expect(r.path).toBe('/v1/completions');
    expect(r.body).toEqual({
      model: 'llama-8b',
      prompt: 'p',
      max_tokens: 16,
      temperature: 0.5,
      stream: true,
      ignore_eos: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    });
    expect(r.tokenAccounting).toBe('openai-continuous-usage');
  });

  it('refuses the SGLang-only native API with a plan error', () => {
    expect(() =>
      vllmAdapter.requestFor({
        api: 'native',
        model: 'm',
        prompt: 'p',
        maxTokens: 1,
        ignoreEos: false,
        temperature: 0,
        stream: true,
      }),
    ).toThrow(/only available for SGLang/);
  });
});
