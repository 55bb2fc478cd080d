// The log format corpus: one fixture per real-world log shape (written for this project, after the
// engines' own log statements), with the facts a correct reader must extract from it.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sglangAdapter } from './sglang.js';
import { tgiAdapter } from './tgi.js';
import type { EngineAdapter, LogReading } from './types.js';
import { vllmAdapter } from './vllm.js';

const corpus = (name: string) => readFileSync(new URL(`./corpus/${name}`, import.meta.url), 'utf8');

interface Case {
  file: string;
  adapter: EngineAdapter;
  /** Normalised or native facts and their values. */
  facts?: Record<string, string | number | boolean | null>;
  ready?: number | null;
  /** Line and a fragment of the excerpt of the failed start; null when the start did not fail. */
  failedStart?: { line: number; contains: string } | null;
  acceptance?: { neverAccepted: boolean; maxMeanLength: number | null; lines: number } | null;
}

const CASES: Case[] = [
  {
    file: 'vllm-wrapped-80-and-120.txt',
    adapter: vllmAdapter,
    facts: {
      tp_size: 2,
      'vllm.gpu_memory_utilization': 0.85,
      context_length: 32768,
      dtype: 'bfloat16',
      'speculative.algorithm': 'EAGLE3',
      'speculative.num_steps': 3,
      'speculative.num_draft_tokens': 3,
      engine_version: '0.11.2',
    },
    ready: 17,
    failedStart: null,
    acceptance: null,
  },
  {
    file: 'vllm-workerproc-failed.txt',
    adapter: vllmAdapter,
    facts: { tp_size: 2 },
    ready: null,
    failedStart: { line: 6, contains: 'WorkerProc failed to start' },
  },
  {
    file: 'vllm-enginecore-failed.txt',
    adapter: vllmAdapter,
    ready: null,
    failedStart: { line: 4, contains: 'EngineCore failed to start' },
  },
  {
    file: 'vllm-traceback-after-drafter.txt',
    adapter: vllmAdapter,
    ready: null,
    failedStart: { line: 7, contains: 'RuntimeError: Error(s) in loading state_dict' },
  },
  {
    file: 'vllm-spec-never-accepted.txt',
    adapter: vllmAdapter,
    ready: 5,
    failedStart: null,
    acceptance: { neverAccepted: true, maxMeanLength: 1, lines: 2 },
  },
  {
    file: 'vllm-spec-accepted.txt',
    adapter: vllmAdapter,
    failedStart: null,
    acceptance: { neverAccepted: false, maxMeanLength: 2.31, lines: 1 },
  },
  {
    file: 'sglang-scheduler-exception.txt',
    adapter: sglangAdapter,
    facts: {
      'speculative.algorithm': 'EAGLE3',
      tp_size: 2,
      dtype: 'auto',
      'speculative.num_draft_tokens': 4,
    },
    ready: null,
    failedStart: { line: 3, contains: 'Scheduler hit an exception' },
  },
  {
    file: 'sglang-cuda-oom.txt',
    adapter: sglangAdapter,
    ready: null,
    failedStart: { line: 4, contains: 'torch.OutOfMemoryError: CUDA out of memory' },
  },
  {
    file: 'sglang-accept-len-ones.txt',
    adapter: sglangAdapter,
    ready: 3,
    failedStart: null,
    acceptance: { neverAccepted: true, maxMeanLength: 1, lines: 2 },
  },
  {
    file: 'sglang-accept-len-good.txt',
    adapter: sglangAdapter,
    failedStart: null,
    acceptance: { neverAccepted: false, maxMeanLength: 2.84, lines: 2 },
  },
  {
    file: 'tgi-args-float16.txt',
    adapter: tgiAdapter,
    facts: {
      dtype: 'float16',
      tp_size: 2,
      context_length: 8192,
      model: 'mistralai/Mistral-7B-Instruct-v0.3',
    },
    ready: null,
    failedStart: { line: 4, contains: 'Shard 1 failed to start' },
  },
];

describe('log format corpus', () => {
  it.each(CASES)('$file gives the facts a correct reader extracts', (c) => {
    const r: LogReading = c.adapter.readLog(corpus(c.file), c.file);
    for (const [key, value] of Object.entries(c.facts ?? {})) {
      expect({ key, value: r.facts[key]?.value }).toEqual({ key, value });
    }
    if (c.ready !== undefined) expect(r.readyLine).toBe(c.ready);
    if (c.failedStart === null) expect(r.failedStart ?? null).toBeNull();
    else if (c.failedStart) {
      expect(r.failedStart?.line).toBe(c.failedStart.line);
      expect(r.failedStart?.excerpt).toContain(c.failedStart.contains);
    }
    if (c.acceptance === null) expect(r.acceptance ?? null).toBeNull();
    else if (c.acceptance) expect(r.acceptance).toMatchObject(c.acceptance);
  });

  it('reads the same facts from an ANSI-coloured copy of a wrapped log', () => {
    const text = corpus('vllm-wrapped-80-and-120.txt').replace(/\b(INFO)\b/g, '\u001b[32m$1\u001b[0m');
    const r = vllmAdapter.readLog(text, 'x.log');
    expect(r.facts.tp_size?.value).toBe(2);
    expect(r.facts.context_length?.value).toBe(32768);
  });
});

describe('hostile log input', () => {
  it.each([
    ['nested brackets', `INFO 01-01 00:00:00 [x] non-default args: {${"'a': [".repeat(200_000)}`],
    ['nested calls', `[2026-01-01 00:00:00] server_args=ServerArgs(${'a=('.repeat(200_000)}`],
    ['one 10 MB line', `Traceback (most recent call last):\n${'a'.repeat(10_000_000)} b`],
  ])('reads %s without throwing', (_name, text) => {
    for (const adapter of [vllmAdapter, sglangAdapter, tgiAdapter]) {
      expect(() => adapter.readLog(text, 'x.log')).not.toThrow();
    }
  });
});
