import { describe, expect, it } from 'vitest';
import { ownsArrival, shardFromEnv, shareOf, subShard } from './shard.js';

describe('shard shares', () => {
  it('split a total exactly: shares add up and differ by at most one', () => {
    for (const [total, count] of [
      [64, 3],
      [2, 3],
      [100, 7],
      [0, 2],
    ] as const) {
      const shares = Array.from({ length: count }, (_, i) => shareOf(total, i, count));
      expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
    expect([0, 1, 2].map((i) => shareOf(64, i, 3))).toEqual([22, 21, 21]);
  });

  it('give every open-loop arrival to exactly one shard', () => {
    for (let k = 0; k < 50; k++)
      expect([0, 1, 2].filter((index) => ownsArrival(k, { index, count: 3 }))).toHaveLength(1);
  });
});

describe('a shard split again over worker threads', () => {
  it('gives each worker arrivals of its pod only, and together all of them', () => {
    const pods = 3;
    const workers = 2;
    for (let pod = 0; pod < pods; pod++) {
      const outer = { index: pod, count: pods };
      for (let k = 0; k < 60; k++) {
        const owners = [0, 1].filter((w) => ownsArrival(k, subShard(outer, w, workers)));
        expect(owners).toHaveLength(ownsArrival(k, outer) ? 1 : 0);
      }
    }
  });

  it("splits a pod's streams exactly: the workers' shares add up to the pod's", () => {
    for (const total of [1, 2, 5, 64, 257]) {
      for (const pods of [1, 2, 3]) {
        for (const workers of [1, 2, 3, 4]) {
          for (let pod = 0; pod < pods; pod++) {
            const shares = Array.from({ length: workers }, (_, w) => {
              const s = subShard({ index: pod, count: pods }, w, workers);
              return shareOf(total, s.index, s.count);
            });
            expect(shares.reduce((a, b) => a + b, 0)).toBe(shareOf(total, pod, pods));
          }
        }
      }
    }
  });

  it('is the plain worker share without an outer shard', () => {
    expect(subShard(null, 1, 4)).toEqual({ index: 1, count: 4 });
  });
});

describe('shard from the environment', () => {
  it('is null without JOB_COMPLETION_INDEX, and reads index, count and start time', () => {
    expect(shardFromEnv({})).toBeNull();
    expect(
      shardFromEnv({ JOB_COMPLETION_INDEX: '2', BENCHGATE_SHARDS: '3', BENCHGATE_START_AT: '1800000000000' }),
    ).toEqual({ index: 2, count: 3, startAtEpochMs: 1_800_000_000_000 });
    expect(
      shardFromEnv({
        JOB_COMPLETION_INDEX: '0',
        BENCHGATE_SHARDS: '2',
        BENCHGATE_START_AT: '2027-01-01T00:00:00Z',
      })?.startAtEpochMs,
    ).toBe(Date.parse('2027-01-01T00:00:00Z'));
  });

  it('names the variable that is missing or wrong', () => {
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: '1' })).toThrow(/BENCHGATE_SHARDS/);
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: '3', BENCHGATE_SHARDS: '3' })).toThrow(
      /expected 0 … 2/,
    );
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: 'x', BENCHGATE_SHARDS: '3' })).toThrow(
      /JOB_COMPLETION_INDEX must be/,
    );
    expect(() =>
      shardFromEnv({ JOB_COMPLETION_INDEX: '0', BENCHGATE_SHARDS: '3', BENCHGATE_START_AT: 'soon' }),
    ).toThrow(/BENCHGATE_START_AT/);
  });
});
