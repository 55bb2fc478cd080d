import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeAnchor } from '../core/clock.js';
import { summarizeLevel } from '../metrics/level.js';
import type { LevelSummary } from '../metrics/summary.js';
import { parsePlanText } from '../plan/load.js';
import type { RequestRecord } from '../records/request-record.js';
import { randomRecords } from '../records/test-support/random-records.js';
import type { Manifest } from './layout.js';
import { mergeShardRuns } from './merge.js';
import { readRun } from './read-run.js';
import { createRunStore } from './run-store.js';
import type { ShardClock } from './shard-info.js';

const plan = parsePlanText(
  'name: sharded\nload:\n  kind: concurrency\n  levels: [6, 12]\n  requests: 60\npercentiles: [50, 99]\n',
  'p.yaml',
);

/** One shard's run directory as `bench` writes it: records, level files, summary, manifest.shard. */
function writeShard(
  root: string,
  index: number,
  clock: ShardClock,
  wallAtAnchorMs: number,
  bootId: string | null = null,
): string {
  const anchor = takeAnchor();
  const store = createRunStore({
    outDir: root,
    runId: `shard-${index}`,
    secrets: [],
    manifest: {
      name: 'sharded',
      plan,
      planPath: null,
      versions: { benchgate: 't', node: process.version, os: 'x' },
      anchor,
      verifiedTarget: null,
      checkpoint: null,
      forced: null,
      tokenizer: null,
      source: { tool: 'benchgate' },
      startedAt: new Date(wallAtAnchorMs).toISOString(),
      finishedAt: new Date(wallAtAnchorMs + 5000).toISOString(),
      shard: { index, count: 3, startAtEpochMs: null, wallAtAnchorMs, bootId, clock },
    } as Omit<Manifest, 'schema' | 'runId'>,
  });
  const levels: LevelSummary[] = [];
  for (const li of [0, 1]) {
    const records = randomRecords(120, 100 * index + li, li, 1000 * li);
    for (const r of records) store.appendRecord(r);
    const level = summarizeLevel({
      levelIndex: li,
      level: { kind: 'concurrency', value: plan.load.levels[li]! },
      records,
      percentiles: plan.percentiles,
      slo: plan.slo,
      inFlightAtEnd: index,
      client: { eventLoopDelayP99Ms: 2 + index, cpuPercentOfOneCore: 30 + index },
    });
    levels.push(level);
    store.writeLevel(level);
  }
  store.writeSummary(
    { schema: 'benchgate.summary/1', runId: store.runId, name: 'sharded', levels },
    plan.percentiles,
  );
  store.close();
  return store.dir;
}

const sample = (atMs: number, offsetMs: number, uncertaintyMs = 0.2) => ({ atMs, offsetMs, uncertaintyMs });
const clock = (startOffsetMs: number, endOffsetMs: number): ShardClock => ({
  reference: 'test',
  start: sample(0, startOffsetMs),
  end: sample(5000, endOffsetMs),
});

describe('benchgate merge', () => {
  it('joins three shards into one run whose summaries equal those recomputed from its merged records', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const wall = 1_800_000_000_000;
    const dirs = [
      writeShard(root, 2, clock(0.5, 0.7), wall + 40),
      writeShard(root, 0, clock(0, 0), wall),
      writeShard(root, 1, clock(-3, -3), wall + 10),
    ];
    const merged = await mergeShardRuns({ dirs, outDir: join(root, 'out') });
    const run = await readRun(merged.runDir);
    expect(run.warnings).toEqual([]);
    expect(run.summary.levels).toHaveLength(2);
    for (const level of run.summary.levels) {
      const records = readFileSync(join(merged.runDir, 'requests.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as RequestRecord)
        .filter((r) => r.levelIndex === level.levelIndex);
      expect(records).toHaveLength(360);
      const recomputed = summarizeLevel({
        levelIndex: level.levelIndex,
        level: level.level,
        records,
        percentiles: plan.percentiles,
        slo: plan.slo,
        inFlightAtEnd: level.requests.inFlightAtEnd,
        client: level.client,
        validity: level.validity,
      });
      expect(level).toEqual(recomputed);
      expect(level.requests.inFlightAtEnd).toBe(0 + 1 + 2);
      expect(level.client.eventLoopDelayP99Ms).toBe(4);
      expect(level.validity.valid).toBe(true);
    }
    // ids are unique and every shard's timeline moved by its corrected anchor
    const all = readFileSync(join(merged.runDir, 'requests.jsonl'), 'utf8').trim().split('\n');
    expect(new Set(all.map((l) => (JSON.parse(l) as RequestRecord).id)).size).toBe(720);
    const shards = merged.merge.shards;
    expect(shards.map((s) => [s.index, s.records, s.offsetMs])).toEqual([
      [0, 240, 0],
      [1, 240, -3],
      [2, 240, 0.6],
    ]);
    const m = JSON.parse(readFileSync(join(merged.runDir, 'manifest.json'), 'utf8')) as Manifest;
    expect(m.anchor.wallEpochMs).toBe(wall); // shard 0 (wall + 0 + 0) is the earliest corrected anchor
    expect(m.merge?.suspect).toBe(false);
    expect(m.merge?.skewBoundMs).toBeCloseTo(0.4 + 0.2, 9); // shard 2: 0.2 + drift 0.2; next: 0.2
    const first1 = randomRecords(120, 100, 0, 0)[3]!; // shard 1, level 0, first measured record
    const moved = all.map((l) => JSON.parse(l) as RequestRecord).find((r) => r.sentMs === first1.sentMs + 7);
    expect(moved).toBeDefined(); // shard 1 sits 10 − 3 = 7 ms after shard 0
  });

  it('marks the run suspect and every level invalid when the shard clocks are too far apart to place records', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const dirs = [0, 1, 2].map((i) =>
      writeShard(root, i, i === 1 ? { reference: 'test', start: null, end: null } : clock(0, i * 30), 1e12),
    );
    const merged = await mergeShardRuns({ dirs, outDir: root, maxSkewMs: 10 });
    expect(merged.merge.suspect).toBe(true);
    expect(merged.merge.reasons.join('\n')).toMatch(/shard 1 measured no clock offset/);
    expect(merged.merge.reasons.join('\n')).toMatch(/skewed by up to 60\.4\d* ms \(limit 10 ms\)/);
    for (const l of merged.summary.levels) expect(l.validity.valid).toBe(false);
  });

  it('places shards of one machine (one boot id) by their anchors alone: one kernel clock, bound 0', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const dirs = [0, 1, 2].map((i) => writeShard(root, i, clock(0, i * 30), 1e12 + i, 'boot-1'));
    const merged = await mergeShardRuns({ dirs, outDir: root });
    expect(merged.merge.suspect).toBe(false);
    expect(merged.merge.shards.map((s) => [s.offsetMs, s.boundMs, s.reference])).toEqual(
      [0, 1, 2].map(() => [0, 0, 'one machine (boot id boot-1)']),
    );
  });

  it('refuses a missing shard, a repeated shard and a run that is not a shard, naming them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const [a, b, c] = [0, 1, 2].map((i) => writeShard(root, i, clock(0, 0), 1e12));
    await expect(mergeShardRuns({ dirs: [a!, b!], outDir: root })).rejects.toThrow(
      /shard\(s\) 2 of 3 are missing/,
    );
    await expect(mergeShardRuns({ dirs: [a!, b!, b!, c!], outDir: root })).rejects.toThrow(
      /are both shard 1/,
    );
    await expect(mergeShardRuns({ dirs: [a!, root], outDir: root })).rejects.toThrow(/manifest/);
  });
});
