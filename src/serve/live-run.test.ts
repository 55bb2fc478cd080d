import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveRun } from './live-run.js';
import { figuresOf } from './live-tail.js';

// The live view's picture of a run from its files alone, before any level has ended.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function runDir(load: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bg-live-'));
  dirs.push(dir);
  const manifest = {
    name: 'live',
    startedAt: new Date().toISOString(),
    plan: { load: { kind: 'concurrency', ...load } },
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(join(dir, 'requests.jsonl'), '');
  return dir;
}

describe('the live state of a run', () => {
  it('lists every trial of every level, in the order the sweep sends them', () => {
    const s = new LiveRun(runDir({ levels: [1, 4], trials: 2, requests: 8 })).state();
    expect(s.levels.map((l) => l.label)).toEqual([
      'c=1 trial 1',
      'c=4 trial 1',
      'c=1 trial 2',
      'c=4 trial 2',
    ]);
    expect(s.levels.map((l) => l.status)).toEqual(['running', 'to come', 'to come', 'to come']);
  });

  it('shows the running level’s server telemetry from the samples scraped so far', () => {
    const dir = runDir({ levels: [2], requests: 8 });
    const sample = (running: number, kv: number) =>
      JSON.stringify({ tMs: 1, values: { running, waiting: 0, kvCacheUsage: kv } });
    // the line being appended when the dashboard reads is cut: it is skipped, not an error
    writeFileSync(
      join(dir, 'telemetry-level-00.live.jsonl'),
      `${sample(2, 0.1)}\n${sample(4, 0.3)}\n{"tMs":3,"val`,
    );
    const level = new LiveRun(dir).state().levels[0];
    expect(level.status).toBe('running');
    expect(level.telemetry).toMatchObject({ running: 3, waiting: 0, kvCacheMax: 0.3 });
  });
});

describe('the live view and the one judgement', () => {
  it('shows a finished level with its stored judgement, not "valid" beside a suspect run', () => {
    const dir = runDir({ levels: [2], requests: 8 });
    const judgement = {
      status: 'suspect',
      reasons: [
        {
          severity: 'suspect',
          check: 'prefix-cache',
          text: 'Prefix cache: 98.0% of the measured prompt tokens …',
        },
        { severity: 'note', check: 'samples', text: 'Too few samples for p99' },
      ],
    };
    const level = {
      levelIndex: 0,
      level: { kind: 'concurrency', value: 2 },
      windowS: 1,
      requests: { completed: 8, failed: 0 },
      throughput: { outputTokensPerS: 10 },
      errorsByCode: {},
      ttftMs: { count: 8, mean: 1, std: 0, min: 1, max: 1, percentiles: { p50: null, p99: null } },
      tokenItlMs: null,
      validity: { valid: true, reasons: [] },
      judgement,
    };
    writeFileSync(join(dir, 'level-00.json'), JSON.stringify(level));
    const l = new LiveRun(dir).state().levels[0];
    expect(l.status).toBe('done');
    expect(l.validity).toEqual({
      status: 'suspect',
      reasons: ['Prefix cache: 98.0% of the measured prompt tokens …'],
    });
    expect(l.figures).toMatchObject({ ttftP99Ms: null, ttftSamples: 8 });
  });

  it('gives the running level a percentile once its samples reach the floor (p99: 662), the count before', () => {
    const progress = (n: number) => ({
      levelIndex: 0,
      done: n,
      errors: 0,
      errorsByCode: {},
      outputTokens: n,
      firstSentMs: 0,
      lastEndMs: 1000,
      ttftMs: Array.from({ length: n }, (_, i) => i),
      tokenItlMs: [],
    });
    expect(figuresOf(progress(661))).toMatchObject({ ttftP99Ms: null, ttftSamples: 661 });
    expect(figuresOf(progress(662)).ttftP99Ms).toBeGreaterThan(600);
    expect(figuresOf(progress(10))).toMatchObject({ ttftP50Ms: null, ttftSamples: 10 });
    expect(figuresOf(progress(11)).ttftP50Ms).toBe(5);
  });
});
