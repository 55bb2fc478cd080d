// Synthetic run directories for `npm run bench:store`: N runs of two levels each, in the real format
// (manifest, requests.jsonl, level-NN.json, summary.json) with seeded, varied request records, so the
// store is measured on the reader, judge and writer the product uses.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarizeLevel } from '../metrics/level.js';
import { randomRecords } from '../records/test-support/random-records.js';

const ALGORITHMS = ['null', 'EAGLE3', 'EAGLE3', 'NEXTN'];

function manifest(i: number, name: string, startedAt: string) {
  const fact = (value: unknown) => ({ value, source: 'GET /server_info' });
  const algorithm = ALGORITHMS[i % ALGORITHMS.length];
  return {
    schema: 'benchgate.manifest/1',
    runId: name,
    name,
    plan: {
      name,
      target: { api: 'completions' },
      workload: {
        dataset: 'random',
        input_tokens: { fixed: 100 },
        output_tokens: { fixed: 64 },
        temperature: 0,
      },
      load: { kind: 'concurrency', levels: [8, 64] },
    },
    planPath: null,
    versions: { benchgate: 'bench', node: process.version, os: 'linux x64' },
    anchor: { monoMs: 0, wallIso: startedAt, wallEpochMs: Date.parse(startedAt) },
    verifiedTarget: {
      url: 'http://127.0.0.1:30000',
      engine: 'sglang',
      engineVersion: '0.5.10',
      model: 'bench-model',
      config: {
        tp_size: fact(8),
        'speculative.algorithm': fact(algorithm === 'null' ? null : algorithm),
        'speculative.topk': fact(algorithm === 'null' ? null : 1 + (i % 2) * 3),
      },
      raw: {},
      processStartTime: startedAt,
      fingerprint: `sha256:bench-${i}`,
    },
    checkpoint: null,
    forced: null,
    tokenizer: null,
    source: { tool: 'benchgate' },
    startedAt,
    finishedAt: startedAt,
  };
}

/** Writes `runs` run directories under `root`, `recordsPerRun` records each; returns the record count. */
export function writeSyntheticRuns(root: string, runs: number, recordsPerRun: number): number {
  let total = 0;
  for (let i = 0; i < runs; i++) {
    const name = `bench-run-${String(i).padStart(3, '0')}`;
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    const startedAt = new Date(Date.UTC(2026, 10, 1) + i * 3_600_000).toISOString();
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest(i, name, startedAt)));
    const half = Math.floor(recordsPerRun / 2);
    const levels = [8, 64].map((c, li) => {
      const records = randomRecords(half, i * 2 + li + 1, li, li * half);
      writeFileSync(join(dir, 'requests.jsonl'), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`, {
        flag: 'a',
      });
      total += records.length;
      return summarizeLevel({
        levelIndex: li,
        level: { kind: 'concurrency', value: c },
        records,
        percentiles: [50, 90, 95, 99],
        slo: {},
        inFlightAtEnd: 0,
      });
    });
    levels.forEach((l) => {
      writeFileSync(join(dir, `level-0${l.levelIndex}.json`), JSON.stringify(l));
    });
    writeFileSync(
      join(dir, 'summary.json'),
      JSON.stringify({ schema: 'benchgate.summary/1', runId: name, name, levels }),
    );
  }
  return total;
}
