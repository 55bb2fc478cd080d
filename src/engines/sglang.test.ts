import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';
import { sglangAdapter } from './sglang.js';

const SERVER_INFO = {
  model_path: '/models/Kimi-K2-Instruct-INT4',
  tokenizer_path: '/models/Kimi-K2-Instruct-INT4',
  served_model_name: 'kimi-k2',
  api_key: 'sk-very-secret',
  tp_size: 8,
  dp_size: 1,
  pp_size: 1,
  dtype: 'auto',
  quantization: null,
  context_length: null,
  max_running_requests: 48,
  disable_overlap_schedule: false,
  speculative_algorithm: 'EAGLE3',
  speculative_draft_model_path: '/models/kimi-eagle3',
  speculative_num_steps: 3,
  speculative_eagle_topk: 1,
  speculative_num_draft_tokens: 4,
  port: 30000,
  max_total_num_tokens: 812345,
  internal_states: [{ avg_spec_accept_length: 2.71, last_gen_throughput: 123.4 }],
  version: '0.5.4',
};

const LOG = [
  '[2026-03-01 09:00:00] WARNING server_args.py:2292: Overlap scheduler is disabled when spec v2 is off or using unsupported speculative algorithm. You can set env SGLANG_ENABLE_SPEC_V2=True to enable the experimental overlap scheduler. ',
  "[2026-03-01 09:00:01] server_args=ServerArgs(model_path='/models/old', served_model_name='old', tp_size=4, disable_overlap_schedule=True, speculative_algorithm='EAGLE3', speculative_eagle_topk=4)",
  '[2026-03-01 09:05:00] The server is fired up and ready to roll!',
  '[2026-03-02 10:00:00] \u001b[33mWARNING\u001b[0m server_args.py:2341: Spec v2 is enabled for eagle/eagle3 speculative decoding and overlap schedule is turned on.',
  "[2026-03-02 10:00:02] server_args=ServerArgs(model_path='/models/Kimi \\'K2\\'', served_model_name=\"kimi-k2\", tp_size=8, dtype='auto', quantization=None, context_length=None, max_running_requests=48, disable_overlap_schedule=False, speculative_algorithm='EAGLE3', speculative_draft_model_path='/models/kimi-eagle3', speculative_num_steps=3, speculative_eagle_topk=1, speculative_num_draft_tokens=4, mem_fraction_static=0.85, watchdog_timeout=300, api_key='sk-secret', json_model_override_args='{}', lora_paths=None, enable_lora=None, speculative_token_map=None, extra={'a': [1, 2.5e-3, inf]})",
  '[2026-03-02 10:09:00] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=12.00 GB',
  'INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
  '[2026-03-02 10:10:00] The server is fired up and ready to roll!',
  '[2026-03-02 10:11:00] Decode batch. #running-req: 1, #token: 100, token usage: 0.00, accept len: 2.80, gen throughput (token/s): 40.0, #queue-req: 0',
  '[2026-03-02 10:12:00] Scheduler hit an exception: Traceback (most recent call last):',
  '  File "/sgl/scheduler.py", line 2000, in run_scheduler_process',
  '    scheduler.event_loop_overlap()',
  "AttributeError: 'NoneType' object has no attribute 'forward_batch'",
  '',
  '[2026-03-02 10:12:00] Received sigquit from a child process. It usually means the child failed.',
].join('\n');

describe('sglang readLive', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer({
      '/server_info': SERVER_INFO,
      '/model_info': {
        model_path: '/models/Kimi-K2-Instruct-INT4',
        is_generation: true,
        weight_version: 'default',
      },
      '/v1/models': {
        object: 'list',
        data: [
          { id: 'kimi-k2', object: 'model', owned_by: 'sglang', root: 'kimi-k2', max_model_len: 131072 },
        ],
      },
    });
  });
  afterAll(() => server.close());

  it('normalises server_info, model_info and /v1/models with a source on every fact', async () => {
    const { facts, raw } = await sglangAdapter.readLive(createTargetHttp(server.url));
    expect(facts.engine.value).toBe('sglang');
    expect(facts.engine_version).toEqual({ value: '0.5.4', source: 'GET /server_info' });
    expect(facts.model.value).toBe('/models/Kimi-K2-Instruct-INT4');
    expect(facts.served_model_name.value).toBe('kimi-k2');
    expect(facts.tp_size.value).toBe(8);
    expect(facts.quantization.value).toBeNull();
    expect(facts.overlap_schedule).toEqual({ value: true, source: 'GET /server_info' });
    expect(facts['sglang.disable_overlap_schedule'].value).toBe(false);
    expect(facts['speculative.algorithm'].value).toBe('EAGLE3');
    expect(facts['speculative.topk'].value).toBe(1);
    expect(facts['speculative.num_draft_tokens'].value).toBe(4);
    expect(facts.context_length).toEqual({ value: 131072, source: 'GET /v1/models' });
    expect(facts['speculative.spec_v2'].value).toBe(true);
    expect(facts['speculative.spec_v2'].inferred).toBe(true);
    for (const f of Object.values(facts)) expect(f.source).toBeTruthy();
    expect(Object.keys(raw).sort()).toEqual(['/model_info', '/server_info', '/v1/models']);
  });

  it('never copies the API key into facts or raw documents', async () => {
    const { facts, raw } = await sglangAdapter.readLive(createTargetHttp(server.url));
    expect(JSON.stringify(raw)).not.toContain('sk-very-secret');
    expect(JSON.stringify(facts)).not.toContain('sk-very-secret');
  });

  it('falls back to the legacy /get_server_info and /get_model_info paths', async () => {
    const legacy = await startFixtureServer({
      '/get_server_info': {
        ...SERVER_INFO,
        disable_overlap_schedule: true,
        max_running_requests: null,
        internal_states: [{ effective_max_running_requests_per_dp: 52 }],
      },
      '/get_model_info': { model_path: '/m' },
    });
    try {
      const { facts, raw } = await sglangAdapter.readLive(createTargetHttp(legacy.url));
      expect(facts.overlap_schedule).toEqual({ value: false, source: 'GET /get_server_info' });
      expect(facts.max_running_requests).toEqual({
        value: 52,
        source: 'GET /get_server_info internal_states[0]',
      });
      expect(facts['speculative.spec_v2'].value).toBe(false);
      expect(Object.keys(raw)).toContain('/get_model_info');
      expect(facts.context_length).toBeUndefined();
    } finally {
      await legacy.close();
    }
  });

  it('takes the running requests the scheduler admits over the flag /server_info keeps showing', async () => {
    const capped = await startFixtureServer({
      '/server_info': {
        ...SERVER_INFO,
        max_running_requests: 32,
        internal_states: [{ effective_max_running_requests_per_dp: 9 }],
      },
    });
    try {
      const { facts } = await sglangAdapter.readLive(createTargetHttp(capped.url));
      expect(facts.max_running_requests).toEqual({ value: 9, source: 'GET /server_info internal_states[0]' });
      expect(facts['sglang.max_running_requests'].value).toBe(32);
    } finally {
      await capped.close();
    }
  });

  it('detects SGLang from /model_info but not a vLLM-like server', async () => {
    expect(await sglangAdapter.detect(createTargetHttp(server.url))).toBe(true);
    const other = await startFixtureServer({ '/version': { version: '0.10.1' } });
    try {
      expect(await sglangAdapter.detect(createTargetHttp(other.url))).toBe(false);
    } finally {
      await other.close();
    }
  });
});

describe('sglang readLog', () => {
  const reading = sglangAdapter.readLog(LOG, '/var/log/sglang.log');

  it('finds every start marker with its time, and the ready line of the last start', () => {
    expect(reading.startMarkerLines).toEqual([2, 5]);
    // The start's own warnings come just before its ServerArgs line.
    expect(reading.startRegionFirstLines).toEqual([1, 4]);
    expect(reading.startMarkerTimes).toEqual(['2026-03-01T09:00:01.000Z', '2026-03-02T10:00:02.000Z']);
    expect(reading.readyLine).toBe(8);
  });

  it('parses the last ServerArgs line, quotes and escapes included', () => {
    const f = reading.facts;
    expect(f.model).toEqual({ value: "/models/Kimi 'K2'", source: '/var/log/sglang.log:5' });
    expect(f.tp_size.value).toBe(8);
    expect(f.overlap_schedule.value).toBe(true);
    expect(f['speculative.topk'].value).toBe(1);
    expect(f['sglang.mem_fraction_static'].value).toBe(0.85);
    expect(f['sglang.extra.a'].value).toBe('[1,0.0025,null]'); // dicts become nested keys
    expect(f['sglang.api_key'].value).toBe('<redacted>');
    expect(f['sglang.server_args_truncated']).toBeUndefined();
  });

  it('reads spec v2 from the warning printed just before the current start marker (ANSI-coloured)', () => {
    expect(reading.facts['speculative.spec_v2']).toEqual({ value: true, source: '/var/log/sglang.log:4' });
  });

  it('reports crashes after the last start only', () => {
    expect(reading.crashes.map((c) => c.line)).toEqual([10, 15]);
    expect(reading.crashes[0].excerpt).toContain('AttributeError');
  });

  it('survives a truncated ServerArgs line and a log with no start at all', () => {
    const cut = sglangAdapter.readLog(
      "[2026-03-02 10:00:02] server_args=ServerArgs(model_path='/m', tp_size=8, speculative_algor",
      'x.log',
    );
    expect(cut.facts.tp_size.value).toBe(8);
    expect(cut.facts['sglang.server_args_truncated'].value).toBe(true);
    expect(cut.facts['speculative.algorithm']).toBeUndefined();
    const none = sglangAdapter.readLog('hello\nworld\n', 'y.log');
    expect(none.startMarkerLines).toEqual([]);
    expect(none.readyLine).toBeNull();
    expect(none.facts).toEqual({});
  });

  it('says spec v2 is off when the overlap-disabled warning belongs to the current start', () => {
    const old = LOG.split('\n').slice(0, 3).join('\n');
    const r = sglangAdapter.readLog(old, 'old.log');
    expect(r.facts['speculative.spec_v2']).toEqual({ value: false, source: 'old.log:1' });
    expect(r.facts.overlap_schedule.value).toBe(false);
  });
});

describe('sglang readProcess', () => {
  const argv = [
    'python3',
    '-m',
    'sglang.launch_server',
    '--model-path',
    '/models/k2',
    '--tp-size',
    '8',
    '--speculative-algorithm',
    'EAGLE3',
    '--speculative-eagle-topk',
    '1',
    '--speculative-num-steps=3',
    '--trust-remote-code',
    '--max-running-requests',
    '64',
    '--api-key',
    'sk-xyz',
  ];

  const build = (version: string) => ({ engine_version: { value: version, source: 'GET /server_info' } });

  it('reads flags by their ServerArgs names and spec v2 from the environment on a known build', () => {
    const f = sglangAdapter.readProcess(
      argv,
      { SGLANG_ENABLE_SPEC_V2: 'True', PATH: '/bin' },
      'pid 42',
      build('0.5.6'),
    );
    expect(f.model.value).toBe('/models/k2');
    expect(f.tp_size).toEqual({ value: 8, source: 'pid 42' });
    expect(f['speculative.num_steps'].value).toBe(3);
    expect(f['sglang.trust_remote_code'].value).toBe(true);
    expect(f.max_running_requests.value).toBe(64);
    expect(f['speculative.spec_v2'].value).toBe(true);
    expect(f.overlap_schedule.value).toBe(true);
    expect(f.overlap_schedule.inferred).toBe(true);
    expect(f.served_model_name.inferred).toBe(true);
    expect(JSON.stringify(f)).not.toContain('sk-xyz');
  });

  it('knows overlap and spec v2 are off with --disable-overlap-schedule, on every build', () => {
    const f = sglangAdapter.readProcess(
      [...argv, '--disable-overlap-schedule', '--tensor-parallel-size', '4'],
      null,
      'cmdline',
    );
    expect(f.overlap_schedule).toEqual({ value: false, source: 'cmdline' });
    expect(f.tp_size.value).toBe(4);
    expect(f['speculative.spec_v2']).toMatchObject({ value: false, inferred: true });
  });

  it('does not read SGLANG_ENABLE_SPEC_V2 when the build is unknown: it was ignored before 0.5.4.post1 and after 2026-06-11', () => {
    const f = sglangAdapter.readProcess(argv, { SGLANG_ENABLE_SPEC_V2: '1' }, 'cmdline');
    expect(f['speculative.spec_v2']).toBeUndefined();
    expect(f.overlap_schedule).toBeUndefined();
    expect(f['sglang.spec_v2_rule'].value).toContain('the build decides');
  });

  it.each([
    ['0.5.4', { SGLANG_ENABLE_SPEC_V2: '1' }, [], false],
    ['0.5.4.post1', { SGLANG_ENABLE_SPEC_V2: '1' }, [], true],
    ['0.5.10.post1', {}, [], false],
    ['0.5.11', { SGLANG_ENABLE_SPEC_V2: '0' }, [], false],
    ['0.5.11', {}, [], undefined],
    ['0.5.12', {}, [], true],
    ['0.5.12', { SGLANG_ENABLE_SPEC_V2: '0' }, [], false],
    ['0.5.13', { SGLANG_ENABLE_SPEC_V2: '0' }, [], undefined],
    ['0.5.13.dev20260605+g1234abcd', { SGLANG_ENABLE_SPEC_V2: '0' }, [], false],
    ['0.5.14', { SGLANG_ENABLE_SPEC_V2: '0' }, [], true],
    // spec v1 retired (2026-06-11, c0480a88b): a tree draft runs the V2 worker, overlapped (main 2026-08-22)
    ['0.5.14', {}, ['--speculative-eagle-topk', '4'], true],
    ['0.5.14', {}, [], true],
    ['0.5.14', {}, ['--disable-overlap-schedule'], false],
  ] as const)('on %s with %j %j spec v2 is %s', (version, env, extra, specV2) => {
    const f = sglangAdapter.readProcess([...argv, ...extra], { ...env }, 'cmdline', build(version));
    expect(f['speculative.spec_v2']?.value).toBe(specV2);
    if (specV2 !== undefined) expect(f.overlap_schedule.value).toBe(specV2);
    else expect(f['sglang.spec_v2_rule'].value).toMatch(/^unknown: /);
  });
});

describe('sglang requestFor', () => {
  const base = {
    model: 'kimi-k2',
    prompt: 'hi',
    maxTokens: 64,
    ignoreEos: true,
    temperature: 0,
    stream: true,
  };

  it('builds a native /generate request with sampling_params and cumulative token accounting', () => {
    const r = sglangAdapter.requestFor({ ...base, api: 'native' });
    expect(r).toEqual({
      method: 'POST',
      path: '/generate',
      body: {
        text: 'hi',
        sampling_params: { max_new_tokens: 64, temperature: 0, ignore_eos: true },
        stream: true,
      },
      tokenAccounting: 'native-cumulative',
    });
  });

  it('asks OpenAI endpoints for continuous usage and passes ignore_eos at the top level', () => {
    const chat = sglangAdapter.requestFor({ ...base, api: 'chat' });
    expect(chat.path).toBe('/v1/chat/completions');
    expect(chat.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(chat.body.stream_options).toEqual({ include_usage: true, continuous_usage_stats: true });
    expect(chat.body.ignore_eos).toBe(true);
    expect(chat.tokenAccounting).toBe('openai-continuous-usage');
    const done = sglangAdapter.requestFor({ ...base, api: 'completions', stream: false, ignoreEos: false });
    expect(done.body.stream_options).toBeUndefined();
    expect(done.body.ignore_eos).toBeUndefined();
  });
});

describe('sglang specCounters', () => {
  it('averages the per-rank accept-length gauge and sums generation tokens', () => {
    const text = [
      '# TYPE sglang:spec_accept_length gauge',
      'sglang:spec_accept_length{dp_rank="0",engine_type="unified",model_name="k2",tp_rank="0"} 2.5',
      'sglang:spec_accept_length{dp_rank="1",engine_type="unified",model_name="k2",tp_rank="0"} 3.5',
      'sglang:generation_tokens_total{model_name="k2"} 1.2345e+06',
    ].join('\n');
    expect(sglangAdapter.specCounters(text)).toEqual({ acceptLengthGauge: 3, generationTokens: 1234500 });
  });

  it('returns null when the server exposes no speculative metric', () => {
    expect(sglangAdapter.specCounters('sglang:generation_tokens_total 5\n')).toBeNull();
  });
});

describe('sglang whereToRead', () => {
  it('points spec v2 to the start-up log line and the process environment', () => {
    expect(sglangAdapter.whereToRead('speculative.spec_v2')).toContain('Spec v2 is enabled');
    expect(sglangAdapter.whereToRead('speculative.spec_v2')).toContain('SGLANG_ENABLE_SPEC_V2');
    expect(sglangAdapter.whereToRead('nonsense')).toBeNull();
  });

  it('says that builds from 2026-06-11 print neither, and tie spec v2 to the overlap scheduler', () => {
    // spec v1 retired and the 'Spec v2 is enabled' line removed: SGLang c0480a88b, 2026-06-11
    expect(sglangAdapter.whereToRead('speculative.spec_v2')).toMatch(
      /before 2026-06-11.*disable_overlap_schedule/,
    );
  });
});
