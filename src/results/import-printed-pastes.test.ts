// Result tables as users paste them: with the benchmark's command line or its Namespace echo above a
// table that does not state its level (the level comes from the flags, or the tool's defaults for the
// flags left out), with tqdm's bar glued to the header, and with a note typed after a value.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importResultText } from './import-result.js';

const FIXTURES = new URL('./fixtures/import/', import.meta.url).pathname;
const load = (name: string) => importResultText(readFileSync(FIXTURES + name, 'utf8'), name);

describe('a printed table whose level is on the pasted command line', () => {
  it('takes the defaults for the flags the command line leaves out: rate inf, no cap, every request at once', () => {
    const run = load('vllm-2025-05-printed-after-command.txt');
    const [l] = run.summary.levels;
    expect(l.level).toEqual({ kind: 'concurrency', value: 200 });
    expect(l.requests.completed).toBe(200);
    expect(l.ttftMs?.percentiles.p99).toBeCloseTo(4012.8, 2);
    expect(l.chunkItlMs?.percentiles.p50).toBeCloseTo(55.1, 2);
    expect(run.manifest.source).toMatchObject({ tool: 'vllm-bench-serve' });
  });

  it('reads --request-rate=8 and --max-concurrency 32', () => {
    const [l] = load('vllm-2025-03-printed-after-command-rate.txt').summary.levels;
    expect(l.level).toEqual({ kind: 'rate', value: 8, maxConcurrency: 32 });
    expect(l.tpotMs).toBeNull();
  });

  it('reads the Namespace echo, a header glued to the progress bar, and a value with a note after it', () => {
    const [l] = load('vllm-2025-08-printed-namespace-glued.txt').summary.levels;
    expect(l.level).toEqual({ kind: 'concurrency', value: 16 });
    expect(l.requests).toMatchObject({ completed: 64, failed: 0 });
    expect(l.throughput.outputTokensPerS).toBeCloseTo(985.56, 2);
  });

  it('still refuses a table with no level anywhere in the paste', () => {
    const table = readFileSync(`${FIXTURES}vllm-2025-05-printed-after-command.txt`, 'utf8')
      .split('\n')
      .slice(1)
      .join('\n');
    expect(() => importResultText(table, 'bare.txt')).toThrow(/does not say which level it measured/);
  });
});

describe('a printed table pasted as a Markdown quote (issue 30)', () => {
  it('reads a table with "> " before every line, after a sentence that is not quoted', () => {
    const quoted = load('sglang-v0.5.8-printed-quoted.md');
    const plain = importResultText(
      readFileSync(`${FIXTURES}sglang-v0.5.8-printed-sweep.txt`, 'utf8').split('\n').slice(0, 44).join('\n'),
      'plain.txt',
    );
    const [l] = quoted.summary.levels;
    expect(l.level).toEqual({ kind: 'concurrency', value: 1 });
    expect(l.requests.completed).toBe(24);
    expect(l.ttftMs?.mean).toBe(104.05);
    expect(quoted.summary.levels).toEqual(plain.summary.levels);
  });

  it('names the line of a wrong value by its line in the paste', () => {
    const text = readFileSync(`${FIXTURES}sglang-v0.5.8-printed-quoted.md`, 'utf8').replace(
      /> Successful requests:( +)24 /,
      '> Successful requests:$1-4 ',
    );
    const line = text.split('\n').findIndex((l) => l.startsWith('> Successful requests:')) + 1;
    expect(() => importResultText(text, 'issue.md')).toThrow(
      `issue.md:${line}: "Successful requests:" (completed) must be a whole number ≥ 0; found -4.`,
    );
  });
});

describe('the totals a pasted table prints are kept (issue 30)', () => {
  const sweep = () => readFileSync(`${FIXTURES}sglang-v0.5.8-printed-sweep.txt`, 'utf8');

  it('keeps each level’s total input and generated tokens and its total token throughput in the manifest', () => {
    const run = importResultText(sweep(), 'sweep.txt');
    expect(run.manifest.source.statedTotals?.[0]).toEqual({
      levelIndex: 0,
      inputTokens: 24576,
      outputTokens: 768,
      totalTokensPerS: 2525.19,
    });
    expect(run.manifest.source.statedTotals).toHaveLength(3);
    expect(run.summary.levels[0].throughput.totalTokensPerS).toBe(2525.19);
  });

  it('a printed total token throughput that contradicts input + output is not kept, and is named', () => {
    const text = sweep().replace(
      /Total token throughput \(tok\/s\):( +)2525\.19/,
      'Total token throughput (tok/s):$19999.00 ',
    );
    const line = text.split('\n').findIndex((l) => l.startsWith('Total token throughput (tok/s):')) + 1;
    const run = importResultText(text, 'sweep.txt');
    expect(run.summary.levels[0].throughput.totalTokensPerS).toBeCloseTo(2448.67 + 76.52, 6);
    expect(run.warnings).toContain(
      `sweep.txt:${line}: "total_throughput" says 9999 tok/s but input + output throughput is 2525.19 tok/s; keeping 2525.19.`,
    );
  });
});

describe('a paste holding only one section of a result table (issue 30)', () => {
  it('the "Speculative Decoding" section alone is refused naming the section and what to paste', () => {
    const text = readFileSync(`${FIXTURES}vllm-2026-02-printed-speculative-only.txt`, 'utf8');
    expect(() => importResultText(text, 'spec.txt')).toThrow(
      'Expected SGLang bench_serving or vLLM bench serve results (their JSON or JSONL result file, or the result table they print) in spec.txt; it holds only the "Speculative Decoding" section of a printed result table (line 1), figures without the level, request counts and latencies they belong to; paste the whole table, from its "Serving Benchmark Result" line to the closing "=====" line.',
    );
  });

  it('the same section inside its whole table is read with the level', () => {
    const [l] = load('vllm-2026-02-printed.txt').summary.levels;
    expect(l.speculative?.acceptanceLength).toBe(2.85);
    expect(l.speculative?.verifySteps).toBe(120);
  });
});
