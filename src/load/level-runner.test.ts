import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  completionChunk,
  type ScriptedServer,
  sleep,
  startScriptedServer,
} from '../client/test-support/scripted-server.js';
import type { RequestRecord } from '../records/request-record.js';
import { type LevelShape, runLevel, type SendArgs } from './level-runner.js';
import { completionSender } from './test-send.js';

let srv: ScriptedServer;
let active = 0;
let maxActive = 0;
const origin = performance.now();
const SERVICE_MS = 30;

beforeAll(async () => {
  srv = await startScriptedServer({
    '/v1/completions': async (_q, res) => {
      active++;
      maxActive = Math.max(maxActive, active);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await sleep(SERVICE_MS);
      res.write(`data: ${completionChunk('a', {}, 'length')}\n\ndata: [DONE]\n\n`);
      active--;
      res.end();
    },
  });
});
afterAll(() => srv.close());

const send = completionSender(() => srv.url, { prompt: 'x' }, 1, origin);

const shape = (s: Partial<LevelShape>): LevelShape => ({
  levelIndex: 0,
  level: { kind: 'concurrency', value: 1 },
  requests: 10,
  durationMs: null,
  warmup: 0,
  arrival: 'constant',
  burstiness: 1,
  seed: 1,
  ...s,
});

describe('closed loop', () => {
  it('keeps exactly N requests in flight and runs warmup to completion before measuring', async () => {
    maxActive = 0;
    const seen: RequestRecord[] = [];
    const r = await runLevel({
      shape: shape({ level: { kind: 'concurrency', value: 4 }, requests: 12, warmup: 3 }),
      send,
      onRecord: (x) => seen.push(x),
    });
    expect(maxActive).toBe(4);
    const warm = r.records.filter((x) => x.warmup);
    const measured = r.records.filter((x) => !x.warmup);
    expect(warm).toHaveLength(3);
    expect(measured).toHaveLength(12);
    expect(seen).toHaveLength(15);
    const lastWarmEnd = Math.max(...warm.map((x) => x.endMs));
    expect(Math.min(...measured.map((x) => x.sentMs))).toBeGreaterThanOrEqual(lastWarmEnd);
    expect(r.inFlightAtEnd).toBe(0);
    expect(measured.every((x) => x.error === null)).toBe(true);
  });

  it('ends a duration-bound level by sending nothing new and recording the requests still in flight', async () => {
    const r = await runLevel({
      // requests end about every 32 ms: a deadline of 80 ms falls between two ends, not on one
      shape: shape({ level: { kind: 'concurrency', value: 2 }, requests: null, durationMs: 80 }),
      send,
    });
    expect(r.inFlightAtEnd).toBe(2);
    // every request sent before the deadline is recorded, none sent after it
    const deadlineRel = r.measuredStartMs - origin + 80;
    expect(r.records.every((x) => x.sentMs <= deadlineRel)).toBe(true);
    expect(r.records.filter((x) => x.endMs > deadlineRel)).toHaveLength(2);
    expect(r.records.every((x) => x.error === null)).toBe(true);
  });
});

describe('open loop', () => {
  it('schedules arrivals on the seeded clock and records time waited on the concurrency cap as queue time', async () => {
    maxActive = 0;
    const r = await runLevel({
      shape: shape({
        level: { kind: 'rate', value: 200, maxConcurrency: 1 },
        requests: 6,
        arrival: 'constant',
      }),
      send,
    });
    expect(maxActive).toBe(1);
    const recs = [...r.records].sort((a, b) => a.scheduledMs - b.scheduledMs);
    expect(recs).toHaveLength(6);
    // due every 5 ms, independent of completions
    for (let i = 1; i < recs.length; i++)
      expect(recs[i].scheduledMs - recs[i - 1].scheduledMs).toBeCloseTo(5, 6);
    // one at a time at 30 ms each: the k-th request waits for the k earlier ones
    const queue = recs.map((x) => x.sentMs - x.scheduledMs);
    expect(queue[5]).toBeGreaterThan(queue[1]);
    expect(queue[5]).toBeGreaterThanOrEqual(5 * SERVICE_MS - 5 * 5 - 1);
  });

  it('without a cap sends on schedule even while earlier requests are still running', async () => {
    maxActive = 0;
    const r = await runLevel({
      shape: shape({ level: { kind: 'rate', value: 200 }, requests: 6, arrival: 'constant' }),
      send,
    });
    expect(r.records).toHaveLength(6);
    expect(maxActive).toBeGreaterThan(1);
  });
});

describe('interrupt', () => {
  it('stops sending, aborts in-flight requests and keeps only complete records', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 75);
    const r = await runLevel({
      shape: shape({ level: { kind: 'concurrency', value: 3 }, requests: 1000 }),
      send,
      signal: ac.signal,
    });
    expect(r.interrupted).toBe(true);
    expect(r.inFlightAtEnd).toBe(3);
    expect(r.records.length).toBeGreaterThan(0);
    expect(r.records.length).toBeLessThan(20);
    expect(r.records.every((x) => x.error === null)).toBe(true);
  });
});

describe('records not retained', () => {
  it('hands every record to onRecord and keeps none, and still waits for every send to finish', async () => {
    const seen: RequestRecord[] = [];
    const r = await runLevel({
      shape: shape({ level: { kind: 'rate', value: 500 }, requests: 8, warmup: 2 }),
      send,
      retainRecords: false,
      onRecord: (x) => seen.push(x),
    });
    expect(r.records).toHaveLength(0);
    expect(seen).toHaveLength(10);
    expect(seen.every((x) => x.error === null)).toBe(true);
  });

  it('rethrows a send that failed, after the other sends settled', async () => {
    let calls = 0;
    const failing = (a: SendArgs): Promise<RequestRecord> =>
      ++calls === 2 ? Promise.reject(new Error('boom')) : send(a);
    await expect(
      runLevel({ shape: shape({ level: { kind: 'concurrency', value: 1 }, requests: 4 }), send: failing }),
    ).rejects.toThrow('boom');
  });
});

describe('shards', () => {
  const shards = [0, 1, 2].map((index) => ({ index, count: 3 }));

  it('closed loop: three shards together keep exactly the level’s streams in flight and send exactly its requests', async () => {
    while (active > 0) await sleep(5); // requests an earlier test left running on the server
    maxActive = 0;
    const runs = await Promise.all(
      shards.map((shard) =>
        runLevel({
          shape: shape({ level: { kind: 'concurrency', value: 5 }, requests: 11, warmup: 4, shard }),
          send,
        }),
      ),
    );
    expect(runs.map((r) => r.records.filter((x) => !x.warmup).length)).toEqual([4, 4, 3]);
    expect(runs.map((r) => r.records.filter((x) => x.warmup).length)).toEqual([2, 1, 1]);
    expect(maxActive).toBe(5);
  });

  it('closed loop with fewer streams than shards: the shards with a stream send all the requests', async () => {
    const runs = await Promise.all(
      shards.map((shard) =>
        runLevel({ shape: shape({ level: { kind: 'concurrency', value: 2 }, requests: 9, shard }), send }),
      ),
    );
    expect(runs.map((r) => r.records.length)).toEqual([5, 4, 0]);
  });

  it('open loop: each shard sends every third arrival of the one schedule', async () => {
    const runs = await Promise.all(
      shards.map((shard) =>
        runLevel({
          shape: shape({ level: { kind: 'rate', value: 200 }, requests: 9, arrival: 'constant', shard }),
          send,
        }),
      ),
    );
    for (const r of runs) {
      const due = r.records.map((x) => x.scheduledMs).sort((a, b) => a - b);
      expect(due).toHaveLength(3);
      for (let i = 1; i < due.length; i++) expect(due[i]! - due[i - 1]!).toBeCloseTo(15, 6); // 3 × 5 ms
    }
  });
});

describe('think time (multi-turn)', () => {
  it('schedules each stream’s next request at its due time: the wait is neither queue time nor latency', async () => {
    const dueByStream = new Map<number, number>();
    const returned: { stream: number | null; dueMs: number; scheduledAtMs: number }[] = [];
    const THINK_MS = 40;
    const r = await runLevel({
      shape: shape({ level: { kind: 'concurrency', value: 2 }, requests: 6, warmup: 2 }),
      dueAtMs: (stream) => dueByStream.get(stream) ?? 0,
      send: async (a: SendArgs) => {
        returned.push({
          stream: a.stream,
          dueMs: dueByStream.get(a.stream ?? -1) ?? 0,
          scheduledAtMs: a.scheduledAtMs,
        });
        const rec = await send(a);
        dueByStream.set(a.stream ?? -1, performance.now() + THINK_MS);
        return rec;
      },
    });
    expect(r.records).toHaveLength(8);
    expect(new Set(returned.map((x) => x.stream))).toEqual(new Set([0, 1]));
    // every request after a stream's first is scheduled exactly at the due time the hook gave
    const later = returned.filter((x) => x.dueMs > 0);
    expect(later).toHaveLength(6);
    for (const x of later) expect(x.scheduledAtMs).toBe(x.dueMs);
    // and is never sent before it is due (no negative queue time)
    for (const rec of r.records) expect(rec.sentMs).toBeGreaterThanOrEqual(rec.scheduledMs);
  });
});
