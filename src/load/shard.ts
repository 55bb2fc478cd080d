// Which share of a level's load one shard sends, when N processes (Kubernetes Indexed Job pods, or
// local processes) run one plan together. Closed loop: concurrency, requests and warmup are split
// exactly (shares differ by at most one and add up to the total). Open loop: every shard computes the
// same seeded arrival schedule from the common start and sends only arrivals whose index k satisfies
// k mod N = its index, so the union of the shards' sends is the one-process schedule. The shard comes
// from the environment: JOB_COMPLETION_INDEX (set by Kubernetes on Indexed Job pods) and
// BENCHGATE_SHARDS (the shard count), with BENCHGATE_START_AT (epoch ms or ISO time) as the common start.

import { BenchgateError } from '../core/errors.js';
import { shareOf } from '../core/share.js';

export { shareOf };

export interface Shard {
  index: number;
  count: number;
  /** Epoch ms to wait for before the first request; null = start at once. */
  startAtEpochMs: number | null;
}

/** Whether arrival `k` of an open-loop schedule is this shard's to send. */
export function ownsArrival(k: number, shard: Pick<Shard, 'index' | 'count'>): boolean {
  return k % shard.count === shard.index;
}

/**
 * Share `index` of `count` within `outer` (null: the whole level): the shard index outer.index +
 * outer.count·index of outer.count·count. A pod's share split again over its worker threads: the
 * sub-shards' open-loop arrivals are exactly the pod's (k mod PW = p + P·w ⇔ k mod P = p for one w), and
 * their closed-loop shares add up to the pod's (shareOf is additive over that index pattern).
 */
export function subShard(
  outer: Pick<Shard, 'index' | 'count'> | null,
  index: number,
  count: number,
): Pick<Shard, 'index' | 'count'> {
  const o = outer ?? { index: 0, count: 1 };
  return { index: o.index + o.count * index, count: o.count * count };
}

function nonNegativeInt(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new BenchgateError('BG_E_USAGE', `${name} must be a whole number ≥ 0; found "${value}".`);
  return n;
}

/** The shard this process runs, or null when JOB_COMPLETION_INDEX is not set (one process runs it all). */
export function shardFromEnv(env: Record<string, string | undefined>): Shard | null {
  const rawIndex = env.JOB_COMPLETION_INDEX;
  if (rawIndex === undefined || rawIndex === '') return null;
  const index = nonNegativeInt('JOB_COMPLETION_INDEX', rawIndex);
  const rawCount = env.BENCHGATE_SHARDS;
  if (rawCount === undefined || rawCount === '')
    throw new BenchgateError(
      'BG_E_USAGE',
      'JOB_COMPLETION_INDEX is set but BENCHGATE_SHARDS (the number of shards) is not; set both, or neither to run alone.',
    );
  const count = nonNegativeInt('BENCHGATE_SHARDS', rawCount);
  if (count < 1 || index >= count)
    throw new BenchgateError(
      'BG_E_USAGE',
      `JOB_COMPLETION_INDEX ${index} is not a shard of BENCHGATE_SHARDS ${count} (expected 0 … ${count - 1}).`,
    );
  const rawStart = env.BENCHGATE_START_AT;
  let startAtEpochMs: number | null = null;
  if (rawStart !== undefined && rawStart !== '') {
    startAtEpochMs = /^\d+(\.\d+)?$/.test(rawStart) ? Number(rawStart) : Date.parse(rawStart);
    if (!Number.isFinite(startAtEpochMs))
      throw new BenchgateError(
        'BG_E_USAGE',
        `BENCHGATE_START_AT expects epoch milliseconds or an ISO time; found "${rawStart}".`,
      );
  }
  return { index, count, startAtEpochMs };
}
