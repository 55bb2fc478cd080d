import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkResultsDir } from './results-dir.js';

// The results directory check on real folders: it proves the directory can be written without leaving
// anything behind, and a `check` of a directory that does not exist yet does not create it.

describe('the results directory check', () => {
  it('passes a writable directory, with its free space, and leaves no probe file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-results-dir-'));
    const [f] = await checkResultsDir(dir);
    expect(f.status).toBe('pass');
    expect(f.found).toMatch(/^writable, \d+ MiB free$/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('passes a directory not there yet whose parent is writable, without creating it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'bg-results-dir-'));
    const dir = join(parent, 'results', 'today');
    const [f] = await checkResultsDir(dir);
    expect(f.status).toBe('pass');
    expect(f.found).toMatch(
      new RegExp(`^writable \\(not there yet; can be created in ${parent}\\), \\d+ MiB free$`),
    );
    expect(existsSync(join(parent, 'results'))).toBe(false);
  });

  it('fails a directory that cannot be created because a file stands in its path', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'bg-results-dir-'));
    writeFileSync(join(parent, 'results'), 'a file');
    const [f] = await checkResultsDir(join(parent, 'results', 'today'));
    expect(f.status).toBe('fail');
    expect(f.found).toBe('ENOTDIR');
    expect(f.hint).toContain('--out');
  });
});
