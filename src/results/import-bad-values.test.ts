// A result file with a value of the wrong type or range is refused naming the file, the line and the
// key (issue 24 item 10: a negative tokens/s was imported as a valid level); a cut or garbled file is
// always a coded BG_E_IMPORT error, never an internal one.

import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { BenchgateError } from '../core/errors.js';
import { importResultText } from './import-result.js';
import { importRefusal as refusal } from './test-support/import-refusal.js';

const FIXTURES = new URL('./fixtures/import/', import.meta.url).pathname;
const fixture = (name: string) => readFileSync(FIXTURES + name, 'utf8');
const root = await mkdtemp(join(tmpdir(), 'bg-import-bad-'));
afterAll(() => rm(root, { recursive: true, force: true }));

/** The second line of the SGLang v0.5.8 fixture with `key` set to `value` (JSON text). */
function sglangWith(key: string, value: string): string {
  const [a, b] = fixture('sglang-v0.5.8-2026-01.jsonl').trim().split('\n');
  const o = JSON.parse(b.replace('Infinity', '"__INF__"'));
  const line = JSON.stringify({ ...o, [key]: '__V__' })
    .replace('"__V__"', value)
    .replace('"__INF__"', 'Infinity');
  return `${a}\n${line}\n`;
}

describe('wrong-typed values are refused with file, line and key', () => {
  const WRONG: [string, string, string][] = [
    [
      'output_throughput',
      '-12.5',
      's.jsonl:2: "output_throughput" must be a finite number ≥ 0; found -12.5.',
    ],
    ['completed', '"24"', 's.jsonl:2: "completed" must be a whole number ≥ 0; found the text "24".'],
    ['completed', '23.5', 's.jsonl:2: "completed" must be a whole number ≥ 0; found 23.5.'],
    [
      'request_throughput',
      'Infinity',
      's.jsonl:2: "request_throughput" must be a finite number ≥ 0; found Infinity.',
    ],
    ['max_concurrency', '0', 's.jsonl:2: "max_concurrency" must be a whole number ≥ 1; found 0.'],
    [
      'request_rate',
      '"fast"',
      's.jsonl:2: "request_rate" must be a request rate > 0 or "inf"; found the text "fast".',
    ],
    ['p99_ttft_ms', '{"a": 1}', 's.jsonl:2: "p99_ttft_ms" must be a finite number ≥ 0; found an object.'],
  ];
  for (const [key, value, message] of WRONG)
    it(`${key}: ${value}`, () => {
      expect(refusal(sglangWith(key, value), 's.jsonl')).toBe(message);
    });

  it('per-request lists: a wrong element by index, a list that is not one, lists of different lengths', () => {
    const o = JSON.parse(fixture('vllm-2026-02-bench-serve-detailed.json'));
    const pretty = (x: object) => JSON.stringify(x, null, 2);
    const bad = pretty({ ...o, ttfts: [...o.ttfts.slice(0, 3), 'abc', ...o.ttfts.slice(4)] });
    const ttftsLine = bad.split('\n').findIndex((l) => l.startsWith('  "ttfts"')) + 1;
    expect(refusal(bad, 'v.json')).toBe(
      `v.json:${ttftsLine}: "ttfts[3]" must be a finite number ≥ 0; found the text "abc".`,
    );
    expect(refusal(pretty({ ...o, itls: [[0.1], 5, ...o.itls.slice(2)] }), 'v.json')).toContain(
      '"itls[1]" must be a list of numbers; found 5',
    );
    expect(refusal(pretty({ ...o, output_lens: o.output_lens.slice(1) }), 'v.json')).toMatch(
      /v.json:\d+: "output_lens" has 9 entries but "ttfts" has 10/,
    );
    expect(refusal(JSON.stringify({ ...o, errors: 'none' }), 'v.json')).toBe(
      'v.json:1: "errors" must be a list; found the text "none".',
    );
  });

  it('a printed table names the label and its line', () => {
    const text = fixture('vllm-2026-02-printed.txt').replace(
      /Successful requests:( +)9 /,
      'Successful requests:$1-9',
    );
    const line = text.split('\n').findIndex((l) => l.startsWith('Successful requests:')) + 1;
    expect(refusal(text, 'log.txt')).toBe(
      `log.txt:${line}: "Successful requests:" (completed) must be a whole number ≥ 0; found -9.`,
    );
  });

  it('the CLI exits 1 with the sentence and writes no run directory', async () => {
    const file = join(root, 'neg.jsonl');
    await writeFile(file, sglangWith('output_throughput', '-1'));
    const r = await runCli(['import', file, '--out', join(root, 'out')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${file}:2: "output_throughput" must be a finite number ≥ 0; found -1. [BG_E_IMPORT]`,
    );
    expect(r.stdout).toBe('');
  });
});

describe('cut and garbled result files', () => {
  it('every cut and every garbled byte of every fixture is a coded import error or a clean import', () => {
    let refused = 0;
    const files = readdirFixtures();
    for (const name of files) {
      const text = fixture(name);
      const variants: string[] = [];
      for (let k = 1; k <= 24; k++) variants.push(text.slice(0, Math.floor((text.length * k) / 25)));
      for (let k = 1; k <= 24; k++) {
        const at = Math.floor((text.length * k) / 25);
        for (const junk of ['"', '}', ']', '-', 'x', '\n', ':', 'null', '[', '{'])
          variants.push(text.slice(0, at) + junk + text.slice(at + 1));
      }
      for (const v of variants) {
        try {
          importResultText(v, name);
        } catch (e) {
          if (!(e instanceof BenchgateError))
            throw new Error(`${name}: ${JSON.stringify(v.slice(0, 80))}… threw ${(e as Error).stack}`);
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(100);
  });
});

function readdirFixtures(): string[] {
  return [
    'sglang-v0.2.0-2024-07.jsonl',
    'sglang-v0.4.6.post5-2025-05-details.jsonl',
    'sglang-v0.5.8-printed-sweep.txt',
    'vllm-2024-10-benchmark_serving.json',
    'vllm-2025-06-bench-serve-append.json',
    'vllm-2026-02-bench-serve-detailed.json',
    'vllm-2026-02-printed.txt',
  ];
}
