// The smallest and largest of a list of any length. Math.min(...xs) passes every element as an argument
// and overflows the call stack near 100k items, which a level's records or an imported file reach.

export function extent(xs: Iterable<number>): { min: number; max: number } {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let n = 0;
  for (const x of xs) {
    if (x < min) min = x;
    if (x > max) max = x;
    n++;
  }
  return n > 0 ? { min, max } : { min: Number.NaN, max: Number.NaN };
}
