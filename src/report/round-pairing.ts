// Whether two runs' repeated trials of one level ran as interleaved rounds (A_1 B_1, A_2 B_2, …, as the
// matrix runs them with load.trials), so the bootstrap may resample them as pairs: a slow stretch of the
// host then hits both members of a round and cancels in their ratio. Two `bench --trials N` runs made
// one after the other are not rounds (A's trials all ran before B's) and are resampled unpaired. Pure.

import type { AlignedLevel, TrialSpan } from './level-alignment.js';

/**
 * True when both sides ran the same trials (the same trial numbers, two or more), each with a known time
 * span, and round t of both sides ended before round t+1 of either began.
 */
export function interleavedRounds(a: AlignedLevel, b: AlignedLevel): boolean {
  const g = a.trials.length;
  if (g < 2 || b.trials.length !== g) return false;
  for (let t = 0; t < g; t++) {
    const ta = a.trials[t].trial;
    if (ta === undefined || ta !== b.trials[t].trial) return false;
  }
  const rounds: TrialSpan[] = [];
  for (let t = 0; t < g; t++) {
    const sa = a.spans[t];
    const sb = b.spans[t];
    if (!sa || !sb) return false;
    rounds.push({ startMs: Math.min(sa.startMs, sb.startMs), endMs: Math.max(sa.endMs, sb.endMs) });
  }
  return rounds.every((r, t) => t === 0 || rounds[t - 1].endMs <= r.startMs);
}
