// What `benchgate merge` believes of a shard's manifest, checked before it places a single record: the
// index and count are small whole numbers, every clock field is a finite number in a range a real run can
// produce (an uncertainty is ≥ 0: a negative or missing one is an error, not a disabled check), and the
// shard's wall clock at its anchor agrees with the anchor the run recorded beside it. A forged or damaged
// field is refused naming the file and the key.

import { BenchgateError } from '../core/errors.js';
import type { Manifest } from './layout.js';
import type { ClockSample, ShardInfo } from './shard-info.js';

/** More shards than this is not a run one merge can hold (and no Job benchgate renders). */
export const MAX_SHARDS = 1024;
/** A clock offset larger than a day is a broken clock or a forged field, not a measurement. */
const MAX_OFFSET_MS = 86_400_000;
/** wallAtAnchorMs (performance.timeOrigin based) and anchor.wallEpochMs (Date.now) are read together. */
const ANCHOR_AGREEMENT_MS = 1000;
/** Epoch ms of 2000-01-01 and 2200-01-01: the range a run's wall clock can be in. */
const EPOCH_RANGE: [number, number] = [946_684_800_000, 7_258_118_400_000];

function wrong(file: string, key: string, expected: string, found: unknown): BenchgateError {
  const shown =
    typeof found === 'number' || found === null ? String(found) : JSON.stringify(found)?.slice(0, 40);
  return new BenchgateError(
    'BG_E_RUN_DIR',
    `${file}: shard.${key} must be ${expected}; found ${shown ?? 'nothing'}. The merge trusts no clock field it cannot check.`,
  );
}

function finiteIn(file: string, key: string, v: unknown, lo: number, hi: number, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) throw wrong(file, key, what, v);
  return v;
}

function checkSample(file: string, key: string, s: unknown): ClockSample | null {
  if (s === null) return null;
  if (typeof s !== 'object' || s === undefined) throw wrong(file, key, 'a clock sample or null', s);
  const o = s as Record<string, unknown>;
  finiteIn(file, `${key}.atMs`, o.atMs, 0, Number.MAX_SAFE_INTEGER, 'a finite number of ms ≥ 0');
  finiteIn(
    file,
    `${key}.offsetMs`,
    o.offsetMs,
    -MAX_OFFSET_MS,
    MAX_OFFSET_MS,
    'a finite number of ms within a day',
  );
  finiteIn(file, `${key}.uncertaintyMs`, o.uncertaintyMs, 0, MAX_OFFSET_MS, 'a finite number of ms ≥ 0');
  return s as ClockSample;
}

/** The shard fields of one manifest, checked; `file` names the manifest in every message. */
export function checkShardInfo(m: Manifest, file: string): ShardInfo {
  const sh = m.shard as unknown as Record<string, unknown>;
  const count = finiteIn(file, 'count', sh.count, 1, MAX_SHARDS, `a whole number from 1 to ${MAX_SHARDS}`);
  const index = finiteIn(file, 'index', sh.index, 0, count - 1, `a whole number below count (${count})`);
  if (!Number.isInteger(count)) throw wrong(file, 'count', 'a whole number', count);
  if (!Number.isInteger(index)) throw wrong(file, 'index', 'a whole number', index);
  const [lo, hi] = EPOCH_RANGE;
  const wall = finiteIn(file, 'wallAtAnchorMs', sh.wallAtAnchorMs, lo, hi, 'an epoch time in ms');
  if (sh.startAtEpochMs !== null)
    finiteIn(file, 'startAtEpochMs', sh.startAtEpochMs, lo, hi, 'an epoch time in ms or null');
  if (sh.lateStartMs !== undefined)
    finiteIn(file, 'lateStartMs', sh.lateStartMs, 0, MAX_OFFSET_MS, 'a finite number of ms ≥ 0');
  const anchorWall = m.anchor?.wallEpochMs;
  if (typeof anchorWall !== 'number' || Math.abs(anchorWall - wall) > ANCHOR_AGREEMENT_MS)
    throw wrong(
      file,
      'wallAtAnchorMs',
      `within ${ANCHOR_AGREEMENT_MS} ms of the run's anchor.wallEpochMs (${String(anchorWall)}), the same instant read from the same clock`,
      wall,
    );
  const clock = sh.clock as Record<string, unknown> | null;
  if (!clock || typeof clock !== 'object') throw wrong(file, 'clock', 'an object', clock);
  if (typeof clock.reference !== 'string') throw wrong(file, 'clock.reference', 'text', clock.reference);
  checkSample(file, 'clock.start', clock.start);
  checkSample(file, 'clock.end', clock.end);
  return m.shard as ShardInfo;
}

/** "0, 1, 2, … (12 in all)": at most ten numbers of a list. */
export function someNumbers(xs: number[]): string {
  return xs.length <= 10 ? xs.join(', ') : `${xs.slice(0, 10).join(', ')}, … (${xs.length} in all)`;
}
