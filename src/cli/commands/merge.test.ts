// End to end: three shard processes of one plan (JOB_COMPLETION_INDEX 0–2) against one simulator, run
// with the real CLI, merged with `benchgate merge`, then read by `report` and `compare` like any run.

import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeLevel } from '../../metrics/level.js';
import type { RunSummary } from '../../metrics/summary.js';
import { withholdUnsupported } from '../../metrics/tail-samples.js';
import type { RequestRecord } from '../../records/request-record.js';
import type { Manifest } from '../../results/layout.js';
import type { SimulatorHandle } from '../../sim/api.js';
import { startSimulator } from '../../sim/index.js';
import { cliNodeArgs } from '../test-support/cli-argv.js';

const run = promisify(execFile);
const root = await mkdtemp(join(tmpdir(), 'bg-cli-shards-'));
let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ host: '127.0.0.1', port: 0, loadTimeS: 0, flavor: 'vllm' });
  await sim.ready;
});
afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [...cliNodeArgs(), ...args], {
      env: { ...process.env, NO_COLOR: '1', ...env },
      maxBuffer: 32 << 20,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

const benchArgs = (out: string) => [
  'bench',
  '--url',
  sim.url,
  '--engine',
  'vllm',
  '--concurrency',
  '3,6',
  '--requests',
  '24',
  '--warmup',
  '3',
  '--input-tokens',
  '16',
  '--output-tokens',
  '8',
  '--out',
  out,
  '--name',
  'sharded',
  '--json',
];

describe('three local shards merged into one run', () => {
  it('split the load exactly, merge into summaries recomputable from the records, and read like any run', async () => {
    const shardsDir = join(root, 'shards');
    const startAt = String(Date.now() + 10_000);
    const shards = await Promise.all(
      [0, 1, 2].map((i) =>
        cli(benchArgs(shardsDir), {
          JOB_COMPLETION_INDEX: String(i),
          BENCHGATE_SHARDS: '3',
          BENCHGATE_START_AT: startAt,
        }),
      ),
    );
    for (const s of shards) expect(s.code, s.stderr).toBe(0);
    // one run per shard, named by index (the time stamps before the name may differ)
    const shardOf = (d: string) => Number(/-shard-(\d+)$/.exec(d)?.[1]);
    const dirs = (await readdir(shardsDir))
      .map((d) => join(shardsDir, d))
      .sort((a, b) => shardOf(a) - shardOf(b));
    expect(dirs.map(shardOf)).toEqual([0, 1, 2]);

    // On a busy machine the CLI processes reach the common start seconds late, which the merge rightly
    // calls suspect; start-lag detection is tested in src/results/merge.test.ts, so allow it here.
    const merged = await cli([
      'merge',
      ...dirs,
      '--out',
      join(root, 'merged'),
      '--max-start-lag-ms',
      '120000',
    ]);
    expect(merged.code, merged.stderr).toBe(0);
    const runDir = merged.stdout.trim();
    expect(merged.stderr).toMatch(/shard 2: \d+ records, clock offset/);
    const manifest = JSON.parse(await readFile(join(runDir, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.merge?.suspect).toBe(false);
    // local shards share one kernel clock: placed by their anchors, bound 0
    expect(manifest.merge?.shards.every((s) => s.reference.startsWith('one machine'))).toBe(true);
    for (const d of dirs) {
      const m = JSON.parse(await readFile(join(d, 'manifest.json'), 'utf8')) as Manifest;
      expect(m.shard?.clock.reference).toMatch(/^http-date http:\/\/127\.0\.0\.1/);
      expect(m.shard?.clock.start).not.toBeNull(); // measured anyway, for a reader to check
    }

    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
    const records = (await readFile(join(runDir, 'requests.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RequestRecord);
    expect(summary.levels.map((l) => l.level.value)).toEqual([3, 6]);
    for (const level of summary.levels) {
      // the whole plan's requests and warmup, split over the shards
      expect(level.requests.completed + level.requests.failed).toBe(24);
      expect(level.requests.warmup).toBe(3);
      const mine = records.filter((r) => r.levelIndex === level.levelIndex);
      const { judgement: _judgement, ...figures } = level as typeof level & { judgement?: unknown };
      expect(figures).toEqual(
        withholdUnsupported(
          summarizeLevel({
            levelIndex: level.levelIndex,
            level: level.level,
            records: mine,
            percentiles: manifest.plan.percentiles,
            slo: manifest.plan.slo,
            inFlightAtEnd: level.requests.inFlightAtEnd,
            client: level.client,
            validity: level.validity,
          }),
        ),
      );
    }

    const report = await cli(['report', runDir]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('sharded-merged');
    const compare = await cli(['compare', dirs[0]!, runDir, '--iterations', '100']);
    expect(compare.code, compare.stderr).toBe(0);
    expect(compare.stdout).toContain('sharded-merged');
  }, 180_000);
});
