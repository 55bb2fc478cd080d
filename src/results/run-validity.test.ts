// The run's one validity judgement: a reason an import alone can give (outputs far short of the requested
// length), the lossless check's verdict, and the stored judgement (validity.json) read back, not judged
// again, while the files it rests on are unchanged.

import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LosslessRecord } from '../metrics/lossless.js';
import { importSglang } from './import-result.js';
import { writeImportedRun } from './import-run.js';
import { readRun } from './read-run.js';
import { losslessReasons } from './run-validity.js';
import { VALIDITY_FILE } from './validity-file.js';

const root = await mkdtemp(join(tmpdir(), 'bg-run-validity-'));
afterAll(() => rm(root, { recursive: true, force: true }));

/** SGLang asked for 1,024 output tokens per request (fixed lengths) and reported 32 generated on average. */
function shortOutputsImport(): string {
  const line = readFileSync(
    new URL('./fixtures/import/sglang-v0.5.4.post3-2025-11.jsonl', import.meta.url),
    'utf8',
  ).split('\n')[0];
  return line
    .replace('"random_output_len": 32', '"random_output_len": 1024')
    .replace('"random_range_ratio": 0.0', '"random_range_ratio": 1.0');
}

describe('the run validity judgement', () => {
  it('calls an import whose outputs stopped far short of the requested length SUSPECT, saying why, and stores it', async () => {
    const dir = await writeImportedRun(root, importSglang(shortOutputsImport(), '/data/short.jsonl'));
    const run = await readRun(dir);
    expect(run.validity?.status).toBe('suspect');
    const level = Object.values(run.validity?.levels ?? {})[0];
    expect(level.status).toBe('suspect');
    expect(level.reasons.find((r) => r.check === 'output-length')?.text).toMatch(
      /^Outputs stopped far short of the requested length: 32 tokens generated per request on average for 1024 requested \(no ignore_eos/,
    );
    const stored = JSON.parse(readFileSync(join(dir, VALIDITY_FILE), 'utf8'));
    expect(stored.validity.status).toBe('suspect');
  });

  it('reads the stored judgement while its basis holds, and judges again once the lossless verdict changes it', async () => {
    const dir = await writeImportedRun(
      root,
      importSglang(shortOutputsImport().replace('eagle3-topk1', 'second'), '/data/second.jsonl'),
    );
    const path = join(dir, VALIDITY_FILE);
    const stored = JSON.parse(readFileSync(path, 'utf8'));
    // a judgement written by another version, say: read as it is, not judged again
    stored.validity.reasons.push({ severity: 'note', check: 'marker', text: 'stored, not recomputed' });
    await writeFile(path, JSON.stringify(stored));
    expect((await readRun(dir)).validity?.reasons.map((r) => r.check)).toContain('marker');

    const lossless: LosslessRecord = {
      schema: 'benchgate.lossless/1',
      config: 'second',
      baseline: 'baseline',
      isBaseline: false,
      required: true,
      valid: false,
      reason: 'lossless check against baseline: diverges early',
      comparison: {
        baseline: 'baseline',
        candidate: 'second',
        verdict: 'diverges-early',
        summary: 'diverges early on 4 of 4 prompts',
        prompts: [],
      } as unknown as LosslessRecord['comparison'],
    };
    await writeFile(join(dir, 'lossless.json'), JSON.stringify(lossless));
    const judged = await readRun(dir);
    expect(judged.validity?.reasons.map((r) => r.check)).not.toContain('marker');
    expect(judged.validity?.status).toBe('invalid');
    expect(judged.validity?.reasons.find((r) => r.check === 'lossless')?.text).toBe(
      'Lossless check against baseline: diverges early on 4 of 4 prompts (lossless.required).',
    );
  });

  it('judges again, never trusts, a stored judgement that is not readable', async () => {
    const dir = await writeImportedRun(
      root,
      importSglang(shortOutputsImport().replace('eagle3-topk1', 'garbled'), '/data/garbled.jsonl'),
    );
    const level = JSON.parse(readFileSync(join(dir, 'level-00.json'), 'utf8'));
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    summary.levels[0].judgement = { status: 'fine', reasons: 5 };
    await writeFile(join(dir, 'summary.json'), JSON.stringify(summary));
    const stored = JSON.parse(readFileSync(join(dir, VALIDITY_FILE), 'utf8'));
    stored.validity.levels = { x: 1 };
    await writeFile(join(dir, VALIDITY_FILE), JSON.stringify(stored));
    const run = await readRun(dir);
    expect(level.judgement).toBeUndefined(); // an import's level files carry none: judged from its records
    expect(Object.values(run.validity?.levels ?? {})[0]?.status).toBe('suspect');
  });

  it('makes a divergence the check does not require SUSPECT, and the baseline nothing', () => {
    const base = { schema: 'benchgate.lossless/1', config: 'x', baseline: 'b', reason: null } as const;
    const comparison = {
      verdict: 'diverges-early',
      summary: 'diverges early',
    } as LosslessRecord['comparison'];
    expect(
      losslessReasons({ lossless: { ...base, isBaseline: false, required: false, valid: true, comparison } }),
    ).toMatchObject([{ severity: 'suspect', check: 'lossless' }]);
    expect(
      losslessReasons({
        lossless: { ...base, isBaseline: true, required: true, valid: true, comparison: null },
      }),
    ).toEqual([]);
  });
});
