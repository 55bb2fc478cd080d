import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importVllm } from './import-result.js';
import { writeImportedRun } from './import-run.js';

const root = await mkdtemp(join(tmpdir(), 'bg-import-large-'));
afterAll(() => rm(root, { recursive: true, force: true }));

/** A vLLM bench serve result with `n` detailed requests of 4 output tokens (kept small on purpose). */
function largeVllmResult(n: number): string {
  return JSON.stringify({
    date: '20260101-120000',
    endpoint_type: 'vllm',
    model_id: 'm',
    num_prompts: n,
    max_concurrency: 256,
    duration: 600.0,
    completed: n,
    failed: 0,
    request_throughput: n / 600,
    output_throughput: (4 * n) / 600,
    total_token_throughput: (1028 * n) / 600,
    input_lens: Array(n).fill(1024),
    output_lens: Array(n).fill(4),
    ttfts: Array.from({ length: n }, (_, i) => 0.1 + (i % 100) / 1000),
    itls: Array.from({ length: n }, () => [0.02, 0.02, 0.02]),
    start_times: Array.from({ length: n }, (_, i) => 1000 + i / 500),
    errors: Array(n).fill(''),
    mean_ttft_ms: 150,
    median_ttft_ms: 150,
  });
}

describe('importing a large result file', () => {
  // 200,000: well past the ~125,000 arguments at which a spread (Math.max(...xs), push(...xs)) overflows
  it('imports and writes 200,000 requests (no call-stack overflow, no giant string)', async () => {
    const n = 200_000;
    const run = importVllm(largeVllmResult(n), '/data/vllm-200k.json');
    expect(run.records.length).toBe(n);
    const level = run.summary.levels[0]!;
    expect(level.requests.completed).toBe(n);
    const dir = await writeImportedRun(root, run);
    const text = await readFile(join(dir, 'requests.jsonl'), 'utf8');
    let lines = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
    expect(lines).toBe(n);
  }, 120_000);
});
