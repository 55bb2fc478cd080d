import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchgateError } from '../core/errors.js';
import { specs, writeRunDir } from '../report/test-support.js';
import { readRun, readRuns } from './read-run.js';

const root = await mkdtemp(join(tmpdir(), 'bg-read-run-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const run = (name: string) => ({
  name,
  levels: [{ concurrency: 2, specs: specs(10, { e2eMs: 100, ttftMs: 10 }) }],
});

async function codeOf(p: Promise<unknown>): Promise<[string, string]> {
  try {
    await p;
  } catch (e) {
    return [(e as BenchgateError).code, (e as Error).message];
  }
  return ['none', ''];
}

describe('readRun', () => {
  it('reads manifest, summary and measured records of a complete run', async () => {
    const dir = await writeRunDir(root, run('complete'));
    const r = await readRun(dir);
    expect(r.name).toBe('complete');
    expect(r.summary.levels).toHaveLength(1);
    expect(r.records).toHaveLength(10);
    expect(r.warnings).toEqual([]);
  });

  it('uses the complete records of a truncated requests file and says so', async () => {
    const dir = await writeRunDir(root, run('killed'));
    const path = join(dir, 'requests.jsonl');
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.trimEnd().slice(0, -40)); // cut the last record mid-line
    const r = await readRun(dir);
    expect(r.records).toHaveLength(9);
    expect(r.warnings.join(' ')).toMatch(/last line \(10\) is incomplete.*using the 9 complete records/);
  });

  it('falls back to level files when summary.json is missing and says so', async () => {
    const dir = await writeRunDir(root, run('no-summary'), { withSummary: false });
    const r = await readRun(dir);
    expect(r.summary.levels).toHaveLength(1);
    expect(r.warnings.join(' ')).toContain('has no summary.json');
  });

  it('rejects a directory that is not a run with one sentence', async () => {
    const [code, msg] = await codeOf(readRun(root));
    expect(code).toBe('BG_E_RUN_DIR');
    expect(msg).toMatch(/^Expected a benchgate run in .*; found none of them\.$/);
    const [code2, msg2] = await codeOf(readRun(join(root, 'does-not-exist')));
    expect(code2).toBe('BG_E_RUN_DIR');
    expect(msg2).toContain('nothing is there');
  });

  it('rejects a corrupted record in the middle of the requests file, naming the line', async () => {
    const dir = await writeRunDir(root, run('corrupt'));
    const path = join(dir, 'requests.jsonl');
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[3] = '{"v":1,';
    await writeFile(path, lines.join('\n'));
    const [code, msg] = await codeOf(readRun(dir));
    expect(code).toBe('BG_E_RUN_DIR');
    expect(msg).toContain('line 4 is not valid JSON');
  });

  it('reads a matrix directory as its runs, in the order they started', async () => {
    const matrix = join(root, 'matrix-1');
    await writeRunDir(matrix, { ...run('zeta'), name: 'zeta' });
    await writeRunDir(matrix, { ...run('alpha'), name: 'alpha' });
    const m = JSON.parse(await readFile(join(matrix, 'zeta', 'manifest.json'), 'utf8'));
    m.startedAt = '2025-01-01T00:00:00.000Z';
    await writeFile(join(matrix, 'zeta', 'manifest.json'), JSON.stringify(m));
    const runs = await readRuns([matrix]);
    expect(runs.map((r) => r.name)).toEqual(['zeta', 'alpha']);
  });

  it('passes over the results store beside the runs (compare results/*), and refuses it named alone', async () => {
    const results = join(root, 'results');
    const a = await writeRunDir(results, run('first'));
    const store = join(results, 'benchgate-store.duckdb');
    await writeFile(store, 'not a run');
    await writeFile(`${store}.wal`, '');
    const runs = await readRuns([a, store, `${store}.wal`]);
    expect(runs.map((r) => r.name)).toEqual(['first']);
    const [code, msg] = await codeOf(readRuns([store]));
    expect(code).toBe('BG_E_RUN_DIR');
    expect(msg).toBe(`Expected a run directory at ${store}; it is a file.`);
  });

  it('refuses a results folder of matrices, naming them and how to compare one', async () => {
    const results = join(root, 'folder-of-matrices');
    await writeRunDir(join(results, 'demo-20261204T1'), run('baseline'));
    await writeRunDir(join(results, 'demo-20261204T1'), run('eagle'));
    await writeRunDir(join(results, 'sweep-20261204T2'), run('other'));
    const [code, msg] = await codeOf(readRuns([results]));
    expect(code).toBe('BG_E_RUN_DIR');
    expect(msg).toBe(
      `${results} is a results folder, not a run: it holds 2 matrices of runs (demo-20261204T1, sweep-20261204T2). ` +
        `Name one (${join(results, 'demo-20261204T1')}) or the runs themselves; \`benchgate runs\` lists every run.`,
    );
  });

  it('makes repeated run names unique', async () => {
    const a = await writeRunDir(join(root, 'x'), run('same'));
    const b = await writeRunDir(join(root, 'y'), run('same'));
    const runs = await readRuns([a, b]);
    expect(new Set(runs.map((r) => r.name)).size).toBe(2);
  });
});
