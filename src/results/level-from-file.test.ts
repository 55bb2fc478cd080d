import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeLevel } from '../metrics/level.js';
import type { LevelContext } from '../metrics/level-accumulator.js';
import { randomRecords } from '../records/test-support/random-records.js';
import { forEachStoredRecord, summarizeStoredLevel } from './level-from-file.js';

const ctx = (levelIndex: number): LevelContext => ({
  levelIndex,
  level: { kind: 'concurrency', value: 16 },
  percentiles: [50, 99],
  slo: { e2e_ms: 500 },
  inFlightAtEnd: 0,
});

function interleavedFile(): { path: string; byLevel: ReturnType<typeof randomRecords>[] } {
  const dir = mkdtempSync(join(tmpdir(), 'bg-levelfile-'));
  const path = join(dir, 'requests.jsonl');
  const byLevel = [randomRecords(300, 11, 0), randomRecords(200, 12, 1, 300)];
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    lines.push(JSON.stringify(byLevel[0]![i]));
    if (i < 200) lines.push(JSON.stringify(byLevel[1]![i]));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { path, byLevel };
}

describe('level summaries from requests.jsonl', () => {
  it('equal summarizeLevel over the same records, level by level, in a file mixing levels', async () => {
    const { path, byLevel } = interleavedFile();
    for (const li of [0, 1]) {
      const fromFile = await summarizeStoredLevel(path, ctx(li));
      expect(fromFile).toEqual(summarizeLevel({ ...ctx(li), records: byLevel[li]! }));
      expect(fromFile.requests.completed + fromFile.requests.failed + fromFile.requests.warmup).toBe(
        byLevel[li]!.length,
      );
    }
  });

  it('skips an incomplete last line with a warning, and refuses a broken line in the middle', async () => {
    const { path } = interleavedFile();
    appendFileSync(path, '{"v":1,"id":9');
    let n = 0;
    const read = await forEachStoredRecord(path, () => n++);
    expect(n).toBe(500);
    expect(read.warning).toMatch(/last line \(501\) is incomplete/);
    appendFileSync(path, '\n{"v":1}\n');
    await expect(forEachStoredRecord(path, () => {})).rejects.toThrow(/line 501 is not valid JSON/);
  });
});
