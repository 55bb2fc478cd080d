// What one shard's records may hold, checked as `merge` reads them. Each request id appears once: a
// repeated id is a copied or forged line, and the merge refuses the shard naming both lines. At each level
// a shard holds at most its share of the plan's warmup and measured requests, the share the load runner
// sends (core/share.ts, the same split): more marks the level invalid and the merged run suspect, naming
// the shard, the level and both counts. A plan without a request count (duration only, SLO search) bounds
// nothing; the ids are still checked.

import { BenchgateError } from '../core/errors.js';
import { shareOf } from '../core/share.js';
import type { LevelKey } from '../records/level-key.js';
import type { RequestRecord } from '../records/request-record.js';
import type { Manifest } from './layout.js';

export interface LevelShare {
  warmup: number;
  measured: number;
}

/**
 * The most records shard `index` of `count` sends at `level`: closed loop, its share over the shards
 * that have a stream (with fewer streams than shards the others send nothing); open loop, the arrivals
 * k < total with k mod count = index. Null when the plan sets no request count.
 */
export function shardShare(
  plan: Manifest['plan'],
  level: LevelKey,
  shard: { index: number; count: number },
): LevelShare | null {
  if (plan.load.kind === 'slo_search') return null;
  const measured = plan.load.requests ?? (plan.load.duration === undefined ? 100 : null);
  if (measured === null) return null;
  const share = (total: number): number => {
    if (level.kind !== 'concurrency') return shareOf(total, shard.index, shard.count);
    const withStreams = Math.min(Math.max(1, Math.round(level.value)), shard.count);
    return shard.index < withStreams ? shareOf(total, shard.index, withStreams) : 0;
  };
  return { warmup: share(plan.load.warmup), measured: share(measured) };
}

/** One shard's records as the merge reads them, level after level. */
export class ShardRecordCheck {
  /** The line each id was first seen on, over every level of the shard. */
  private readonly firstLine = new Map<number, number>();
  private counts: LevelShare = { warmup: 0, measured: 0 };

  constructor(
    private readonly file: string,
    private readonly shardIndex: number,
  ) {}

  /** Counts one record of the level being read; a repeated id is BG_E_RUN_DIR naming both lines. */
  add(r: RequestRecord, lineNo: number): void {
    const first = this.firstLine.get(r.id);
    if (first !== undefined)
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `${this.file}:${lineNo}: request id ${r.id} appears again (first at line ${first}); every record of a shard is one request, so a repeated id is a copied or damaged line. Merge refuses this shard.`,
      );
    this.firstLine.set(r.id, lineNo);
    if (r.warmup) this.counts.warmup++;
    else this.counts.measured++;
  }

  /** Ends the level: why it is invalid when the shard holds more records than its share; counts reset. */
  endLevel(levelName: string, share: LevelShare | null): string[] {
    const { warmup, measured } = this.counts;
    this.counts = { warmup: 0, measured: 0 };
    if (share === null) return [];
    const over = (n: number, most: number, what: string) =>
      n > most
        ? [
            `${levelName}: shard ${this.shardIndex} holds ${n} ${what} records, more than its share of the plan (${most}): records were added to it`,
          ]
        : [];
    return [...over(measured, share.measured, 'measured'), ...over(warmup, share.warmup, 'warmup')];
  }
}
