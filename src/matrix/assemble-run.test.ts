import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeLevel } from '../metrics/level.js';
import { planSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { createRunStore } from '../results/run-store.js';
import { assembleConfigRun, levelRunDir } from './assemble-run.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-assemble-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const plan = planSchema.parse({
  target: { url: 'http://127.0.0.1:1' },
  load: { levels: [1, 2] },
  output: '/x',
});

function record(id: number, t: number): RequestRecord {
  return {
    v: 1,
    id,
    levelIndex: 0,
    warmup: false,
    scheduledMs: t,
    sentMs: t,
    headersMs: t + 1,
    chunkMs: [t + 2, t + 3],
    chunkTokens: [1, 1],
    chunkTokenSource: 'server-per-chunk',
    outputTokensServer: 2,
    outputTokensClient: 2,
    inputTokensServer: 4,
    inputTokensClient: 4,
    requestedOutputTokens: 2,
    finishReason: 'length',
    httpStatus: 200,
    error: null,
    firstContentMs: t + 2,
    endMs: t + 3,
  } as unknown as RequestRecord;
}

/** Writes levels/NN/ as a session would, with the given wall-clock anchor. */
function writeLevel(idx: number, wallEpochMs: number, t: number): void {
  const store = createRunStore({
    outDir: dir,
    runDir: levelRunDir(dir, idx),
    secrets: [],
    manifest: {
      name: 'c',
      plan,
      planPath: null,
      versions: { benchgate: 't', node: 't', os: 't' },
      anchor: { monoMs: 5000, wallEpochMs, wallIso: new Date(wallEpochMs).toISOString() },
      verifiedTarget: null,
      checkpoint: null,
      forced: null,
      tokenizer: null,
      source: { tool: 'benchgate' },
      startedAt: new Date(wallEpochMs).toISOString(),
      finishedAt: null,
    },
  });
  const r = record(0, t);
  store.appendRecord(r);
  store.writeLevel(
    summarizeLevel({
      levelIndex: idx,
      level: { kind: 'concurrency', value: idx + 1 },
      records: [r],
      percentiles: plan.percentiles,
      slo: plan.slo,
      inFlightAtEnd: 0,
    }),
  );
  store.close();
}

describe('assembleConfigRun', () => {
  it('moves records of a level from an earlier session onto the first level’s anchor through wall time', async () => {
    writeLevel(0, 1_000_000, 10);
    writeLevel(1, 1_060_000, 20); // a resumed session, one minute later by the wall clock
    const summary = await assembleConfigRun({
      configDir: dir,
      runId: 'm/c',
      name: 'c',
      plan,
      planPath: null,
      completedLevels: [0, 1],
      checkpoint: null,
      incomplete: null,
    });
    expect(summary.levels.map((l) => l.levelIndex)).toEqual([0, 1]);
    const lines = (await readFile(join(dir, 'requests.jsonl'), 'utf8')).trim().split('\n');
    const recs = lines.map((l) => JSON.parse(l) as RequestRecord);
    expect(recs.map((r) => [r.id, r.levelIndex, r.sentMs, r.chunkMs])).toEqual([
      [0, 0, 10, [12, 13]],
      [1, 1, 60_020, [60_022, 60_023]],
    ]);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.anchor.wallEpochMs).toBe(1_000_000);
    expect(await readFile(join(dir, 'summary.csv'), 'utf8')).not.toBe('');
  });

  it('carries each level’s telemetry files into the config run, on the same anchor as its records', async () => {
    const configDir = join(dir, 'telemetry-config');
    const at = (idx: number) => join(configDir, 'levels', String(idx).padStart(2, '0'));
    for (const [idx, wall] of [
      [0, 1_000_000],
      [1, 1_060_000],
    ]) {
      await mkdir(at(idx), { recursive: true });
      await writeFile(
        join(at(idx), `telemetry-level-0${idx}.json`),
        JSON.stringify({
          intervalMs: 1000,
          sources: {},
          failedScrapes: 0,
          samples: [{ tMs: 7, values: {} }],
        }),
      );
      await writeFile(
        join(at(idx), `gpu-level-0${idx}.json`),
        JSON.stringify({ available: true, samples: [{ tMs: 8, gpu: 0 }] }),
      );
      await writeFile(
        join(at(idx), 'manifest.json'),
        JSON.stringify({ anchor: { monoMs: 5000, wallEpochMs: wall } }),
      );
      await writeFile(
        join(at(idx), 'level-00.json'),
        JSON.stringify(
          summarizeLevel({
            levelIndex: 0,
            level: { kind: 'concurrency', value: 1 },
            records: [],
            percentiles: plan.percentiles,
            slo: plan.slo,
            inFlightAtEnd: 0,
          }),
        ),
      );
    }
    await assembleConfigRun({
      configDir,
      runId: 'm/t',
      name: 't',
      plan,
      planPath: null,
      completedLevels: [0, 1],
      checkpoint: null,
      incomplete: null,
    });
    const read = async (f: string) => JSON.parse(await readFile(join(configDir, f), 'utf8'));
    expect((await read('telemetry-level-00.json')).samples[0].tMs).toBe(7);
    expect((await read('telemetry-level-01.json')).samples[0].tMs).toBe(60_007);
    expect((await read('gpu-level-01.json')).samples[0].tMs).toBe(60_008);
  });

  it('redacts header values of the plan in the assembled manifest (the level manifests already were)', async () => {
    const secretPlan = planSchema.parse({
      target: { url: 'http://127.0.0.1:1', headers: { 'X-Api-Key': 'plan-header-secret-123' } },
      load: { levels: [1] },
      output: '/x',
    });
    const configDir = join(dir, 'secret-config');
    await mkdir(configDir);
    await assembleConfigRun({
      configDir,
      runId: 'm/s',
      name: 's',
      plan: secretPlan,
      planPath: null,
      completedLevels: [],
      checkpoint: null,
      incomplete: null,
    });
    const text = await readFile(join(configDir, 'manifest.json'), 'utf8');
    expect(text).not.toContain('plan-header-secret-123');
    expect(JSON.parse(text).plan.target.headers['X-Api-Key']).toBe('<redacted>');
  });
});
