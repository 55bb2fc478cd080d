import { describe, expect, it } from 'vitest';
import { buildVerifiedTarget, canonicalJson, fingerprintOf } from './verified-target.js';

const base = {
  url: 'http://127.0.0.1:30000',
  engine: 'sglang' as const,
  engineVersion: '0.5.5',
  model: 'm',
  raw: {},
  processStartTime: '2026-01-01T00:00:00.000Z',
  config: {
    tp_size: { value: 8, source: 'GET /server_info' },
    'speculative.topk': { value: 1, source: 'GET /server_info' },
  },
};

describe('fingerprint', () => {
  it('is independent of key order and of where a value was read', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    const reordered = {
      ...base,
      config: {
        'speculative.topk': { value: 1, source: 'server.log:3' },
        tp_size: { value: 8, source: 'x' },
      },
    };
    expect(fingerprintOf(reordered)).toBe(fingerprintOf(base));
  });

  it('changes with a config value, the engine version, the model or the process start time', () => {
    const fp = buildVerifiedTarget(base).fingerprint;
    expect(fp).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(
      fingerprintOf({ ...base, config: { ...base.config, tp_size: { value: 4, source: 'x' } } }),
    ).not.toBe(fp);
    expect(fingerprintOf({ ...base, engineVersion: '0.5.6' })).not.toBe(fp);
    expect(fingerprintOf({ ...base, model: 'other' })).not.toBe(fp);
    expect(fingerprintOf({ ...base, processStartTime: '2026-01-01T00:10:00.000Z' })).not.toBe(fp);
  });
});
