import { describe, expect, it } from 'vitest';
import { logSources } from './log-sources.js';
import { logicalLines } from './logtext.js';
import { sglangAdapter } from './sglang.js';
import { corpusText } from './test-support/log-case.js';

describe('logSources', () => {
  it('leaves a log without a source prefix whole, bars inside records included', () => {
    const text =
      '[2026-01-01 00:00:00] server_args=ServerArgs(tp_size=1)\nslot print_timing: id  0 | task 0 | draft acceptance = 0.5\n';
    expect(logSources(text)).toEqual([{ name: null, text }]);
  });

  it('strips one consistent prefix, keeping every line at its number', () => {
    const lines = logicalLines('[pod/p-0/c] INFO 01-01 00:00:00 [x.py:1] a\n[pod/p-0/c] \n[pod/p-0/c] b\n');
    expect(lines).toEqual([
      { line: 1, text: 'INFO 01-01 00:00:00 [x.py:1] a' },
      { line: 2, text: '' },
      { line: 3, text: 'b' },
    ]);
  });

  it('reads two interleaved prefixes as two logs, each with the other blanked', () => {
    const sources = logSources(corpusText('paste-compose-two-services-interleaved.txt'));
    expect(sources.map((s) => s.name)).toEqual(['llm0-1', 'llm1-1']);
    const [a, b] = sources.map((s) => sglangAdapter.readLog(s.text, 'compose.log'));
    expect(a.failedStart).toMatchObject({ line: 5 });
    expect(a.failedStart?.excerpt).toContain('CUDA out of memory');
    expect(a.facts.served_model_name?.value).toBe('llama-a');
    expect(b.failedStart ?? null).toBeNull();
    expect(b.readyLine).toBe(7);
    expect(b.facts.served_model_name?.value).toBe('llama-b');
  });

  it('does not read a two-source log whole as one server', () => {
    const whole = sglangAdapter.readLog(corpusText('paste-compose-two-services-interleaved.txt'), 'x.log');
    expect(whole.facts.served_model_name).toBeUndefined();
  });
});
