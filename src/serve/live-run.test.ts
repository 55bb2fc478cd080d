import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveRun } from './live-run.js';

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
