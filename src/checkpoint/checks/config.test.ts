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
