import { describe, expect, it } from 'vitest';
import { renderFormat } from './artifacts.js';
import { compareRuns } from './compare.js';
import { buildRun, specs } from './test-support.js';

describe('steady-state table', () => {
  it('reports each closed-loop level with its ramp-up, drain and excluded requests beside the full window', () => {
    const b = buildRun({
      name: 'solo',
      levels: [{ concurrency: 4, specs: specs(100, { e2eMs: 1000, ttftMs: 100 }) }],
    });
    const cmp = compareRuns([{ ...b, name: 'solo', dir: '/x/solo', warnings: [] }], { iterations: 20 });
    const row = cmp.steadyState[0];
    expect(row.label).toBe('c=4');
    expect(row.steady?.windowS).toBeLessThan(row.full.windowS);
    expect(row.steady?.drainS).toBeGreaterThan(0);
    expect(row.steady?.requestsExcluded).toBeGreaterThan(0);
    for (const f of ['text', 'markdown', 'html'] as const)
      expect(renderFormat(cmp, f, { color: false }), f).toContain('ramp-up and drain excluded');
    expect(JSON.parse(renderFormat(cmp, 'json', { color: false })).steadyState[0].steady.rampUpS).toBe(0);
  });
});
