import { describe, expect, it } from 'vitest';
import type { VerifiedTarget } from '../engines/types.js';
import { runningBlock } from './render-running.js';

const target = (
  config: VerifiedTarget['config'],
  engineVersion: string | null = '0.5.10',
): VerifiedTarget => ({
  url: 'http://127.0.0.1:30000',
  engine: 'sglang',
  engineVersion,
  model: 'story/moe',
  config,
  raw: {},
  processStartTime: null,
  fingerprint: 'x',
});
const fact = (value: string | number | boolean | null, source = 'GET /server_info') => ({ value, source });

describe('the running: block of check', () => {
  it('says engine, build, model, parallelism, speculation and where acceptance was read', () => {
    const text = runningBlock(
      target({
        tp_size: fact(8),
        dp_size: fact(1),
        quantization: fact('fp8'),
        'speculative.algorithm': fact('EAGLE3'),
        'speculative.topk': fact(1),
        'speculative.spec_v2': { ...fact(true), inferred: true },
        'speculative.active': fact(true, 'GET /metrics acceptance-length gauge'),
      }),
    ).join('\n');
    expect(text).toContain('running: sglang 0.5.10 · story/moe');
    expect(text).toContain('TP 8 · DP 1 · unknown: PP');
    expect(text).toContain(
      'EAGLE3 · top-k 1 · spec v2 on (inferred) · speculating (GET /metrics acceptance-length gauge)',
    );
  });

  it('says none for no speculation, unknown for a server that does not expose it, and nothing without a target', () => {
    expect(runningBlock(target({ 'speculative.algorithm': fact(null) })).join('\n')).toMatch(
      /speculative +none$/m,
    );
    expect(runningBlock(target({}, null)).join('\n')).toContain('sglang version unknown');
    expect(runningBlock(target({})).join('\n')).toMatch(/speculative +unknown/);
    expect(runningBlock(null)).toEqual([]);
  });
});
