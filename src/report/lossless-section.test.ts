import { describe, expect, it } from 'vitest';
import { compareLossless, type LosslessAnswers, type LosslessRecord } from '../metrics/lossless.js';
import type { LoadedRun } from '../results/layout.js';
import { escapeHtml } from './escape.js';
import { losslessHtml, losslessMarkdownLines, losslessRows, losslessTextLines } from './lossless-section.js';

const answers = (ids: number[], text: string): LosslessAnswers => ({
  schema: 'benchgate.lossless-answers/1',
  maxTokens: ids.length,
  seed: 1,
  answers: [{ prompt: 'Say hi.', ids, text, error: null }],
});

function run(name: string, lossless: LosslessRecord | null): LoadedRun {
  return {
    name,
    dir: `/r/${name}`,
    manifest: null,
    summary: { schema: 'benchgate.summary/1', runId: name, name, levels: [] },
    records: [],
    warnings: [],
    lossless,
  };
}

describe('lossless report section', () => {
  it('lists each run with its verdict, and an early divergence with the prompt and both continuations', () => {
    const cmp = compareLossless({
      baseline: { name: 'base', answers: answers([1, 2, 3, 4], 'one two three four') },
      candidate: { name: 'spec', answers: answers([1, 9, 9, 9], 'one nine nine nine') },
      lateShare: 0.5,
    });
    const rec = (config: string, isBaseline: boolean): LosslessRecord => ({
      schema: 'benchgate.lossless/1',
      config,
      baseline: 'base',
      isBaseline,
      required: true,
      valid: isBaseline,
      reason: null,
      comparison: isBaseline ? null : cmp,
    });
    const rows = losslessRows([
      run('base', rec('base', true)),
      run('spec', rec('spec', false)),
      run('old', null),
    ]);
    expect(rows.map((r) => [r.run, r.verdict])).toEqual([
      ['base', 'baseline'],
      ['spec', 'diverges early'],
    ]);
    const text = losslessTextLines(rows).join('\n');
    expect(text).toContain(
      'spec: diverges early on 1 of 1 prompts (earliest at token 1 of 4, prompt 1); the baseline returned no logprobs there, so whether a near-tie (numerics) or a bug is unknown — invalid',
    );
    expect(text).toContain('"Say hi."');
    expect(text).toContain('"two three four"');
    expect(text).toContain('"nine nine nine"');
    const md = losslessMarkdownLines(rows, (s) => s.replace(/\|/g, '\\|')).join('\n');
    expect(md).toContain('## Lossless (greedy answers vs baseline)');
    expect(md).toContain('- **spec**: diverges early');
    const html = losslessHtml(rows, escapeHtml);
    expect(html).toContain('<h2 id="lossless">');
    expect(html).toContain('<li class="worse"><strong>spec</strong>: diverges early');
    // both continuations shown, escaped (quotes are HTML-escaped)
    expect(html).toContain('two three four');
    expect(html).toContain('nine nine nine');
    expect(losslessHtml([], escapeHtml)).toBe('');
    expect(losslessTextLines([])).toEqual([]);
  });
});
