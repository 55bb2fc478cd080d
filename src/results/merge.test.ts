import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeAnchor } from '../core/clock.js';
import { summarizeLevel } from '../metrics/level.js';
import type { LevelSummary } from '../metrics/summary.js';
import { withholdUnsupported } from '../metrics/tail-samples.js';
import { parsePlanText } from '../plan/load.js';
import type { RequestRecord } from '../records/request-record.js';
import { randomRecords } from '../records/test-support/random-records.js';
import type { Manifest } from './layout.js';
import { mergeShardRuns, shifted } from './merge.js';
import { readRun } from './read-run.js';
import { createRunStore } from './run-store.js';
import type { ShardClock } from './shard-info.js';

const plan = parsePlanText(
  // each shard writes 3 warmup and 117 measured records a level: its exact share of this plan
  'name: sharded\nload:\n  kind: concurrency\n  levels: [6, 12]\n  requests: 351\n  warmup: 9\npercentiles: [50, 99]\n',
  'p.yaml',
);

/** One shard's run directory as `bench` writes it: records, level files, summary, manifest.shard. */
function writeShard(
  root: string,
  index: number,
  clock: ShardClock,
  wallAtAnchorMs: number,
  bootId: string | null = null,
  opts: {
    startAtEpochMs?: number | null;
    lateMs?: number;
    name?: string;
    output?: string;
    shard?: object;
  } = {},
): string {
  // the anchor a real shard records beside wallAtAnchorMs: the same instant on the same clock
  const anchor = {
    ...takeAnchor(),
    wallEpochMs: wallAtAnchorMs,
    wallIso: new Date(wallAtAnchorMs).toISOString(),
  };
  const store = createRunStore({
    outDir: root,
    runId: `shard-${index}`,
    secrets: [],
    manifest: {
      name: opts.name ?? 'sharded',
      plan: { ...plan, name: opts.name ?? plan.name, output: opts.output ?? plan.output },
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
      shard: {
        index,
        count: 3,
        startAtEpochMs: opts.startAtEpochMs ?? null,
        wallAtAnchorMs,
        bootId,
        clock,
        ...opts.shard,
      },
    } as Omit<Manifest, 'schema' | 'runId'>,
  });
  const levels: LevelSummary[] = [];
  for (const li of [0, 1]) {
    const records = randomRecords(120, 100 * index + li, li, 1000 * li).map((r) =>
      shifted(r, opts.lateMs ?? 0, r.id),
    );
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
      // the file withholds the percentiles 360 samples cannot support (p99: 662), as every run file does
      expect(level).toEqual(withholdUnsupported(recomputed));
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

  it('refuses forged clock fields naming the file and the key: no negative or null uncertainty, no 1e9 shards, no anchor that disagrees', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const good = [1, 2].map((i) => writeShard(root, i, clock(0, 0), 1e12));
    const forged = (shard: object, c: ShardClock = clock(0, 0)) =>
      mergeShardRuns({ dirs: [writeShard(root, 0, c, 1e12, null, { shard }), ...good], outDir: root });
    const negative = { reference: 'test', start: sample(0, 0, -5), end: sample(5000, 0) };
    await expect(forged({}, negative)).rejects.toThrow(
      /manifest.json: shard.clock.start.uncertaintyMs must be a finite number of ms ≥ 0; found -5/,
    );
    const nullUncertainty = {
      reference: 'test',
      start: { atMs: 0, offsetMs: 0, uncertaintyMs: null },
      end: null,
    };
    await expect(forged({}, nullUncertainty as unknown as ShardClock)).rejects.toThrow(
      /uncertaintyMs must be .*; found null/,
    );
    await expect(forged({ count: 1e9 })).rejects.toThrow(
      /shard.count must be a whole number from 1 to 1024; found 1000000000/,
    );
    await expect(forged({ wallAtAnchorMs: 1e12 + 1_000_000 })).rejects.toThrow(
      /shard.wallAtAnchorMs must be within 1000 ms of the run's anchor.wallEpochMs/,
    );
    await expect(forged({}, clock(0, 1e12))).rejects.toThrow(
      /clock.end.offsetMs must be a finite number of ms within a day/,
    );
  });

  it('checks forged offsets against the records: a shard placed far from the others did not run with them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    // offsets of an hour on both samples: no drift, a tiny bound, so no skew, yet the records land an hour apart
    const dirs = [0, 1, 2].map((i) =>
      writeShard(root, i, i === 2 ? clock(3_600_000, 3_600_000) : clock(0, 0), 1e12),
    );
    const merged = await mergeShardRuns({ dirs, outDir: root });
    expect(merged.merge.skewBoundMs).toBeLessThan(1);
    expect(merged.merge.suspect).toBe(true);
    expect(merged.merge.reasons.join('\n')).toMatch(
      /shard 2 sent its first request 3\d{3}\.\d+ s after shard \d .*did not run together/,
    );
    for (const l of merged.summary.levels) expect(l.validity.valid).toBe(false);
  });

  it('flags shards that started late against the common start even with skew 0 (one machine)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const wall = 1e12;
    // shard 1 reached the common start 1.2 s late, and its records begin 1.2 s after the others'
    const dirs = [0, 1, 2].map((i) =>
      writeShard(root, i, clock(0, 0), wall, 'boot-1', {
        startAtEpochMs: wall,
        lateMs: i === 1 ? 1200 : 0,
        shard: { lateStartMs: i === 1 ? 1200 : 0 },
      }),
    );
    const merged = await mergeShardRuns({ dirs, outDir: root });
    expect(merged.merge.skewBoundMs).toBe(0);
    expect(merged.merge.suspect).toBe(true);
    const reasons = merged.merge.reasons.join('\n');
    expect(reasons).toMatch(
      /shard 1 reached the common start 1\.200 s late \(limit 250 ms\): it started after the others/,
    );
    expect(reasons).toMatch(/concurrency 6: shard 1 sent its first request 1\.\d+ s after shard \d/);
    expect(merged.summary.levels[0]!.validity.valid).toBe(false);
    // a root of its own: shards written again into the same one would add their records to the first ones
    const again = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const onTime = await mergeShardRuns({
      dirs: [0, 1, 2].map((i) => writeShard(again, i, clock(0, 0), wall, 'boot-1', { startAtEpochMs: wall })),
      outDir: again,
    });
    expect(onTime.merge.suspect).toBe(false);
  });

  it('refuses a shard whose records repeat a request id (two lines copied: 122 for its share of 120), naming the file and both lines', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const dirs = [0, 1, 2].map((i) => writeShard(root, i, clock(0, 0), 1e12, 'boot-1'));
    const file = join(dirs[1]!, 'requests.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    appendFileSync(file, `${lines[10]}\n${lines[11]}\n`);
    const id = (JSON.parse(lines[10]!) as RequestRecord).id;
    await expect(mergeShardRuns({ dirs, outDir: join(root, 'out') })).rejects.toThrow(
      `${file}:${lines.length + 1}: request id ${id} appears again (first at line 11)`,
    );
  });

  it('marks the level invalid and the run suspect when a shard holds more records than its share of the plan', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const dirs = [0, 1, 2].map((i) => writeShard(root, i, clock(0, 0), 1e12, 'boot-1'));
    const file = join(dirs[2]!, 'requests.jsonl');
    const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[5]!) as RequestRecord;
    appendFileSync(file, `${[9001, 9002].map((id) => JSON.stringify({ ...first, id })).join('\n')}\n`);
    const merged = await mergeShardRuns({ dirs, outDir: join(root, 'out') });
    const over =
      'concurrency 6: shard 2 holds 119 measured records, more than its share of the plan (117): records were added to it';
    expect(merged.merge.suspect).toBe(true);
    expect(merged.merge.reasons).toEqual([over]);
    const [c6, c12] = merged.summary.levels;
    expect(c6!.validity).toEqual({ valid: false, reasons: [over] });
    expect(c12!.validity.valid).toBe(true);
  });

  it('merges shards whose plans differ only in name and output directory (the local recipe)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bg-merge-'));
    const dirs = [0, 1, 2].map((i) =>
      writeShard(root, i, clock(0, 0), 1e12, 'boot-1', { name: `demo-shard-${i}`, output: `out-${i}` }),
    );
    const merged = await mergeShardRuns({ dirs, outDir: root });
    expect(merged.summary.name).toBe('demo-merged');
    expect(merged.merge.suspect).toBe(false);
  });
});
