// `import` checks a result against its own records (issue 33 item 6, issue 31): a count the per-request
// lists contradict, a throughput its own totals over its duration contradict, a total or burstiness
// that cannot be, and a label printed twice with two values in one pasted table.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importResultText } from './import-result.js';
import { importRefusal as refusal } from './test-support/import-refusal.js';

const FIXTURES = new URL('./fixtures/import/', import.meta.url).pathname;
const fixture = (name: string) => readFileSync(FIXTURES + name, 'utf8');

/** The SGLang --output-details fixture (8 requests listed, 1 failed) with `over` merged in (bare Infinity kept). */
function sglangDetails(over: Record<string, unknown>): string {
  const o = JSON.parse(fixture('sglang-v0.4.6.post5-2025-05-details.jsonl').replace('Infinity', '"__INF__"'));
  return `${JSON.stringify({ ...o, ...over }).replace('"__INF__"', 'Infinity')}\n`;
}

/** The vLLM --save-detailed fixture (10 requests listed, 1 failed), pretty-printed, with `over` merged in. */
const vllmDetailed = (over: Record<string, unknown>) =>
  JSON.stringify({ ...JSON.parse(fixture('vllm-2026-02-bench-serve-detailed.json')), ...over }, null, 2);

const lineOf = (text: string, key: string) => text.split('\n').findIndex((l) => l.includes(`"${key}"`)) + 1;

describe('counts the per-request lists contradict', () => {
  it('SGLang: completed 50 with 8 requests listed keeps the lists (7 completed, 1 failed) and says so', () => {
    const run = importResultText(sglangDetails({ completed: 50 }), 's.jsonl');
    const [l] = run.summary.levels;
    expect(l.requests).toMatchObject({ completed: 7, failed: 1 });
    expect(run.warnings).toContain(
      's.jsonl:1: "completed" says 50 but the per-request lists hold 8 requests (7 completed, 1 failed); keeping the lists\' counts.',
    );
  });

  it('vLLM: completed 50 and failed 0 with 10 requests listed (1 failed) keeps the lists and names both keys', () => {
    const text = vllmDetailed({ completed: 50, failed: 0 });
    const run = importResultText(text, 'v.json');
    const [l] = run.summary.levels;
    expect(l.requests).toMatchObject({ completed: 9, failed: 1 });
    expect(run.warnings).toContain(
      `v.json:${lineOf(text, 'completed')}: "completed" says 50 but the per-request lists hold 10 requests (9 completed, 1 failed); keeping the lists' counts.`,
    );
    expect(run.warnings).toContain(
      `v.json:${lineOf(text, 'failed')}: "failed" says 0 but the per-request lists hold 1 failed requests; keeping the lists' count.`,
    );
  });
});

describe('values that cannot be', () => {
  it('a negative total_output_tokens is refused naming its line', () => {
    expect(refusal(sglangDetails({ total_output_tokens: -5 }), 's.jsonl')).toBe(
      's.jsonl:1: "total_output_tokens" must be a whole number ≥ 0; found -5.',
    );
  });

  it('burstiness -1 is refused naming its line', () => {
    const text = vllmDetailed({ burstiness: -1 });
    expect(refusal(text, 'v.json')).toBe(
      `v.json:${lineOf(text, 'burstiness')}: "burstiness" must be a number > 0 (1 is Poisson); found -1.`,
    );
  });
});

describe('a throughput its own totals contradict (issue 31)', () => {
  it('output_throughput 6,712 tok/s against total_output_tokens / duration = 1,679: warns and keeps 1,679', () => {
    const text = sglangDetails({ output_throughput: 6712, total_output_tokens: 16790, duration: 10 });
    const run = importResultText(text, 's.jsonl');
    const [l] = run.summary.levels;
    expect(l.throughput.outputTokensPerS).toBe(1679);
    expect(l.throughput.totalTokensPerS).toBeCloseTo(l.throughput.inputTokensPerS + 1679, 6);
    expect(run.warnings.join('\n')).toContain(
      's.jsonl:1: "output_throughput" says 6712 tok/s but its own total_output_tokens / duration (16790 / 10 s, lines 1 and 1) is 1679 tok/s; keeping 1679, the figure its counts give.',
    );
  });

  it('a throughput that agrees with its totals (the fixtures as written) gives no warning', () => {
    for (const name of [
      'sglang-v0.4.6.post5-2025-05-details.jsonl',
      'vllm-2026-02-bench-serve-detailed.json',
    ])
      expect(importResultText(fixture(name), name).warnings.join('\n')).not.toMatch(/says .* but/);
  });
});

describe('a pasted table printing one label twice', () => {
  const table = fixture('vllm-2026-02-printed.txt');
  const ttftAt = table.split('\n').findIndex((l) => l.startsWith('Mean TTFT (ms):'));
  const withSecond = (value: string) => {
    const lines = table.split('\n');
    lines.splice(ttftAt + 2, 0, `Mean TTFT (ms):                          ${value}`);
    return lines.join('\n');
  };

  it('two different "Mean TTFT (ms)" lines are refused naming both lines', () => {
    const first = table
      .split('\n')
      [ttftAt].replace(/^Mean TTFT \(ms\):\s+/, '')
      .trim();
    expect(refusal(withSecond('999.99'), 'log.txt')).toMatch(
      new RegExp(
        `^log\\.txt:${ttftAt + 3}: "Mean TTFT \\(ms\\):" is printed twice in the table at line \\d+, ${Number(first)} at line ${ttftAt + 1} and 999\\.99 at line ${ttftAt + 3}; refusing the table`,
      ),
    );
  });

  it('the same line repeated with the same value is read', () => {
    const first = table
      .split('\n')
      [ttftAt].replace(/^Mean TTFT \(ms\):\s+/, '')
      .trim();
    const [l] = importResultText(withSecond(first), 'log.txt').summary.levels;
    expect(l.ttftMs?.mean).toBe(Number(first));
  });
});
