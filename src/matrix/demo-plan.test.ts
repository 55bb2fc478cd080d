import { describe, expect, it } from 'vitest';
import { buildDemoPlan } from './demo-plan.js';

describe('the README demo plan', () => {
  it('launches four simulator configs on distinct free ports, one with the config-drift fault and strict expectations', async () => {
    const plan = await buildDemoPlan({
      benchgateArgv: ['/usr/bin/node', '/x/dist/cli/main.js'],
      output: '/tmp/out',
    });
    const configs = plan.configs ?? [];
    expect(configs.map((c) => c.name)).toEqual([
      'baseline',
      'eagle3-topk4-v1',
      'eagle3-topk1-v2',
      'eagle3-topk1-v2-drifted',
    ]);
    const ports = configs.map((c) => new URL(c.url!).port);
    expect(new Set(ports).size).toBe(4);
    for (const c of configs) {
      expect(c.launch?.command).toEqual(['/usr/bin/node']);
      expect(c.launch?.args.slice(0, 2)).toEqual(['/x/dist/cli/main.js', 'sim']);
      expect(c.launch?.args).toContain(new URL(c.url!).port);
    }
    const drifted = configs[3];
    expect(drifted.launch?.args.join(' ')).toContain('--fault config-drift');
    expect(drifted.launch?.env).toEqual({ SGLANG_ENABLE_SPEC_V2: '1' });
    expect(drifted.expect?.config?.overlap_schedule).toBe(true);
    expect(configs[1].launch?.args).toContain('--disable-overlap-schedule');
  });
});
