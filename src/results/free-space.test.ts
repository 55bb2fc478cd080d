import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchgateError } from '../core/errors.js';
import { planSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { checkFreeSpace, estimateRunBytes, FREE_SPACE_FLOOR_BYTES, freeBytes } from './free-space.js';
import { createRunStore } from './run-store.js';
import { CAN_MOUNT_TMPFS, mountTinyFs, NEEDS_ROOT } from './test-support/tiny-fs.js';

const plan = (load: Record<string, unknown>) =>
  planSchema.parse({ target: { url: 'http://127.0.0.1:1' }, load, output: '/x' });

function record(id: number): RequestRecord {
  return {
    v: 1,
    id,
    levelIndex: 0,
    warmup: false,
    scheduledMs: id,
    sentMs: id,
    headersMs: id + 1,
    chunkMs: Array.from({ length: 40 }, (_, i) => id + 2 + i),
    chunkTokens: Array.from({ length: 40 }, () => 1),
    error: null,
    endMs: id + 50,
  } as unknown as RequestRecord;
}

function caught(fn: () => unknown): BenchgateError {
  try {
    fn();
  } catch (e) {
    return e as BenchgateError;
  }
  throw new Error('expected an error');
}

describe('free space before a run', () => {
  it('estimates from the planned requests and never below the floor', () => {
    const small = estimateRunBytes(plan({ levels: [1], requests: 1 }));
    const big = estimateRunBytes(plan({ levels: [1, 2, 4], requests: 1000, warmup: 10 }));
    expect(small).toBeGreaterThan(FREE_SPACE_FLOOR_BYTES);
    expect(big - FREE_SPACE_FLOOR_BYTES).toBeGreaterThan((small - FREE_SPACE_FLOOR_BYTES) * 1000);
  });

  it('refuses a directory with less free space than needed, naming it, the space needed and available, exit 3', () => {
    const dir = join(tmpdir(), 'not-yet-created', 'results');
    const available = freeBytes(dir); // measured on the nearest existing parent
    expect(available).toBeGreaterThan(0);
    const e = caught(() => checkFreeSpace(dir, available + 1024 ** 4));
    expect(e.code).toBe('BG_E_DISK');
    expect(e.exitCode).toBe(3);
    expect(e.message).toContain(dir);
    expect(e.message).toMatch(/MiB needed, [\d.]+ MiB available/);
    expect(() => checkFreeSpace(dir, 1024)).not.toThrow();
  });
});

describe.skipIf(!CAN_MOUNT_TMPFS)(`a disk that fills during a run (${NEEDS_ROOT})`, () => {
  it('keeps every complete line of requests.jsonl, names the file, stops the level and leaves no temp file', () => {
    const fs = mountTinyFs(256);
    try {
      const store = createRunStore({
        outDir: fs.dir,
        runId: 'full',
        secrets: [],
        manifest: {
          name: 'full',
          plan: plan({ levels: [1] }),
          planPath: null,
          versions: { benchgate: 't', node: 't', os: 't' },
          anchor: { monoMs: 0, wallEpochMs: 0, wallIso: new Date(0).toISOString() },
          verifiedTarget: null,
          checkpoint: null,
          forced: null,
          tokenizer: null,
          source: { tool: 'benchgate' },
          startedAt: new Date(0).toISOString(),
          finishedAt: null,
        },
      });
      let appended = 0;
      for (; appended < 100_000 && !store.writeFailed.aborted; appended++)
        store.appendRecord(record(appended));
      expect(store.writeFailed.aborted).toBe(true);
      expect(store.writeError?.code).toBe('BG_E_DISK');
      expect(store.writeError?.message).toBe(
        `could not write ${join(fs.dir, 'full', 'requests.jsonl')}: the disk is full (ENOSPC).`,
      );
      const text = readFileSync(join(fs.dir, 'full', 'requests.jsonl'), 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      const lines = text.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(10);
      expect(lines.length).toBeLessThan(appended);
      for (const l of lines) JSON.parse(l); // no partial line
      const e = caught(() =>
        store.writeSummary({ schema: 'benchgate.summary/1', runId: 'full', name: 'full', levels: [] }, [50]),
      );
      expect(e.message).toMatch(/could not write .*summary\.json: the disk is full \(ENOSPC\)/);
      store.close();
      expect(readdirSync(join(fs.dir, 'full')).filter((f) => f.includes('.tmp'))).toEqual([]);
    } finally {
      fs.unmount();
    }
  });
});
