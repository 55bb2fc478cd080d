// The share of a level's chunk gaps that are (near) zero: token-carrying SSE events that reached the client
// in one socket read (the server flushed them together, or the client's event loop read late). Where it is
// large, chunk and token ITL percentiles read 0.00 ms and mean nothing; TPOT is the per-token figure then.

/** Below this a gap is two events of one read, not a time between tokens. */
export const ZERO_GAP_MS = 0.05;

/** The share of `gapsMs` below ZERO_GAP_MS, or null when there is no gap. */
export function zeroGapShare(gapsMs: ArrayLike<number>): number | null {
  if (gapsMs.length === 0) return null;
  let zero = 0;
  for (let i = 0; i < gapsMs.length; i++) if (gapsMs[i] < ZERO_GAP_MS) zero++;
  return zero / gapsMs.length;
}
