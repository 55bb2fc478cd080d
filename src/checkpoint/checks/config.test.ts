import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../engines/index.js';
import { ctxFor } from '../test-support.js';
import { checkConfig, mergeLayers } from './config.js';

const live = (value: string | number | boolean | null) => ({ value, source: 'GET /server_info' });

describe('config expectations', () => {
  const ctx = ctxFor({
    expect: { config: { overlap_schedule: true, tp_size: { '>=': 8 }, 'speculative.topk': 1 } },
  });
  ctx.engine = 'sglang';
  ctx.adapter = getAdapter('sglang');

  it('prefers live endpoints over the process over the log', () => {
    const merged = mergeLayers({
      live: { tp_size: live(8) },
      process: {
        tp_size: { value: 4, source: '/proc/1/cmdline' },
        dtype: { value: 'bf16', source: '/proc/1/cmdline' },
      },
      logs: [
        {
          dtype: { value: 'fp16', source: 'server.log:1' },
          quantization: { value: null, source: 'server.log:1' },
        },
      ],
    });
    expect(merged.tp_size.value).toBe(8);
    expect(merged.dtype.value).toBe('bf16');
    expect(merged.quantization.source).toBe('server.log:1');
  });

  it('lets a fact read directly (process environment) beat one the live endpoints only inferred', () => {
    const spec = ctxFor({ expect: { config: { 'speculative.spec_v2': true } } });
    spec.engine = 'sglang';
    spec.adapter = getAdapter('sglang');
    const layers = {
      live: { 'speculative.spec_v2': { value: false, source: 'GET /server_info', inferred: true } },
      process: { 'speculative.spec_v2': { value: true, source: '/proc/7/environ SGLANG_ENABLE_SPEC_V2' } },
      logs: [],
    };
    expect(mergeLayers(layers)['speculative.spec_v2'].source).toBe('/proc/7/environ SGLANG_ENABLE_SPEC_V2');
    const [f] = checkConfig(spec, layers);
    expect(f.status).toBe('pass');
    expect(f.evidence[0].where).toBe('/proc/7/environ SGLANG_ENABLE_SPEC_V2');
  });

  it('fails when another source contradicts a passing value, showing both', () => {
    const findings = checkConfig(ctx, {
      live: { overlap_schedule: live(true), tp_size: live(8), 'speculative.topk': live(1) },
      process: {},
      logs: [{ overlap_schedule: { value: false, source: 'server.log:12' } }],
    });
    const overlap = findings.find((f) => f.id === 'config.overlap_schedule');
    expect(overlap?.status).toBe('fail');
    expect(overlap?.found).toBe('sources disagree: GET /server_info says true, server.log:12 says false');
    expect(overlap?.evidence.map((e) => e.where)).toEqual(['GET /server_info', 'server.log:12']);
    expect(findings.filter((f) => f.status === 'pass').map((f) => f.id)).toEqual([
      'config.tp_size',
      'config.speculative.topk',
    ]);
  });

  it('ignores inferred values as contradictions, and fails unknown fields with where to read them', () => {
    const findings = checkConfig(ctx, {
      live: { overlap_schedule: live(true) },
      process: { overlap_schedule: { value: false, source: '/proc/1/cmdline', inferred: true } },
      logs: [],
    });
    expect(findings.find((f) => f.id === 'config.overlap_schedule')?.status).toBe('pass');
    const topk = findings.find((f) => f.id === 'config.speculative.topk');
    expect(topk?.status).toBe('fail');
    expect(topk?.found).toMatch(/^unknown: not exposed by sglang; read it from \S/);
  });
});

describe('live evidence of speculation outranks a command-line rule', () => {
  const ctx = ctxFor({ expect: { config: { 'speculative.algorithm': 'DRAFT-SIMPLE' } } });
  ctx.engine = 'llamacpp';
  ctx.adapter = getAdapter('llamacpp');
  const active = { value: true, source: 'smoke request: acceptance length 2.05' };
  const rule = {
    'speculative.algorithm': {
      value: null,
      source:
        '/proc/9/cmdline (-md without a --spec-type loads a draft model but does not speculate on build b9600-abc1234)',
      inferred: true,
    },
    'speculative.algorithm_if_active': {
      value: 'DRAFT-SIMPLE',
      source: '/proc/9/cmdline (-md without a --spec-type)',
      inferred: true,
    },
  };

  it('takes the algorithm the command line runs when speculating, over the rule that said it does not', () => {
    const layers = { evidence: { 'speculative.active': active }, live: {}, process: rule, logs: [] };
    const [f] = checkConfig(ctx, layers);
    expect(f.status).toBe('pass');
    expect(f.evidence[0].where).toMatch(
      /as live evidence shows the server speculating \(smoke request.*it outranks \/proc\/9\/cmdline/,
    );
    expect(mergeLayers(layers)['speculative.algorithm'].value).toBe('DRAFT-SIMPLE');
  });

  it('keeps the rule when no live evidence says otherwise', () => {
    const [f] = checkConfig(ctx, { live: {}, process: rule, logs: [] });
    expect(f.status).toBe('fail');
    expect(f.found).toBe('null (inferred)');
  });

  it('reports a fact read directly that disagrees with the live evidence, with both sources', () => {
    const [f] = checkConfig(ctx, {
      evidence: { 'speculative.active': active },
      live: {},
      process: {},
      logs: [{ 'speculative.algorithm': { value: null, source: 'server.log:21' } }],
    });
    expect(f.status).toBe('fail');
    expect(f.found).toBe(
      'sources disagree: server.log:21 says no speculation, smoke request: acceptance length 2.05 shows drafts accepted',
    );
    expect(f.evidence.map((e) => e.where)).toEqual([
      'server.log:21',
      'smoke request: acceptance length 2.05',
    ]);
  });
});

describe('a build rule that could not be applied', () => {
  it('says why the algorithm is unknown', () => {
    const ctx = ctxFor({ expect: { config: { 'speculative.algorithm': 'DRAFT-SIMPLE' } } });
    ctx.engine = 'llamacpp';
    ctx.adapter = getAdapter('llamacpp');
    const rule =
      'unknown: -md without a --spec-type speculates on builds before b9474 (2026-06-01, commit 5dcb71166, #23988) and not after; build "b0-unknown" was compiled without git metadata, so its number says nothing';
    const [f] = checkConfig(ctx, {
      live: {},
      process: { 'llamacpp.speculation_rule': { value: rule, source: '/proc/3/cmdline' } },
      logs: [],
    });
    expect(f.status).toBe('fail');
    expect(f.found).toContain(`(${rule})`);
  });
});

describe('served_model_name in two spellings', () => {
  it.each([
    [
      'sglang',
      ['python3', '-m', 'sglang.launch_server', '--model-path', 'org/m', '--served-model-name', 'my-model'],
      "[2026-11-20 14:10:00] server_args=ServerArgs(model_path='org/m', served_model_name=['my-model'], tp_size=1)",
    ],
    [
      'vllm',
      ['vllm', 'serve', 'org/m', '--served-model-name', 'my-model'],
      `INFO 11-20 14:02:40 [api_server.py:1] args: Namespace(model='org/m', served_model_name="['my-model']", tensor_parallel_size=1)`,
    ],
  ] as const)(
    'agree when the %s log says a list repr and the command line a plain name',
    (engine, argv, log) => {
      const ctx = ctxFor({ expect: { config: { served_model_name: 'my-model' } } });
      ctx.engine = engine;
      ctx.adapter = getAdapter(engine);
      const layers = {
        live: {},
        process: ctx.adapter.readProcess([...argv], null, '/proc/7/cmdline'),
        logs: [ctx.adapter.readLog(log, 'server.log').facts],
      };
      const [f] = checkConfig(ctx, layers);
      expect({ status: f.status, found: f.found }).toEqual({ status: 'pass', found: '"my-model"' });
    },
  );
});
