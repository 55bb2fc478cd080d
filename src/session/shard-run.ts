// A bench run as one shard of many (load/shard.ts says which share it sends): its run name carries the
// shard index (shards may share one output directory), it waits for the common start, and it samples its
// clock offset to the common reference before the first and after the last level, so `benchgate merge`
// can place its records on the shared timeline (results/shard-info.ts).

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { measureClockOffset, preciseWallMs } from '../client/clock-offset.js';
import { type ClockAnchor, sleepMs } from '../core/clock.js';
import type { Shard } from '../load/shard.js';
import type { ClockSample, ShardInfo } from '../results/shard-info.js';

/** `<name>-shard-<index>`, unless the name already ends so. */
export function shardRunName(name: string, shard: Shard): string {
  const suffix = `-shard-${shard.index}`;
  return name.endsWith(suffix) ? name : `${name}${suffix}`;
}

export interface ShardClockOptions {
  /** The server whose Date header is the common clock (BENCHGATE_CLOCK_REF, else the target). */
  referenceUrl: string;
  headers: Record<string, string>;
  anchor: ClockAnchor;
}

/** One offset sample, or null when the reference sends no usable Date header. */
export async function sampleShardClock(o: ShardClockOptions): Promise<ClockSample | null> {
  const m = await measureClockOffset(o.referenceUrl, { headers: o.headers });
  return m === null ? null : { atMs: performance.now() - o.anchor.monoMs, ...m };
}

/** Waits until the common start (no wait when it has passed); returns how late this shard starts, ms. */
export async function waitForStart(shard: Shard, signal?: AbortSignal): Promise<number> {
  if (shard.startAtEpochMs === null) return 0;
  const waitMs = shard.startAtEpochMs - preciseWallMs();
  if (waitMs > 0) await sleepMs(waitMs, signal);
  return Math.max(0, -waitMs);
}

/** This machine's boot id (Linux), or null where there is none. */
export function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** manifest.shard for this process, its anchor mapped to its wall clock. */
export function shardInfo(
  shard: Shard,
  anchor: ClockAnchor,
  reference: string,
  start: ClockSample | null,
  end: ClockSample | null,
): ShardInfo {
  return {
    index: shard.index,
    count: shard.count,
    startAtEpochMs: shard.startAtEpochMs,
    wallAtAnchorMs: performance.timeOrigin + anchor.monoMs,
    bootId: bootId(),
    clock: { reference: `http-date ${reference}`, start, end },
  };
}
