// Spreading a server's output-token total over the chunks that carried text, for servers that report
// only a final usage count: the per-chunk token counts the metrics need, derived honestly.

/**
 * Spreads a server total over chunks in proportion to each chunk's text size (largest remainder),
 * giving every token-carrying chunk at least one token when the total allows it.
 */
export function distributeTotal(total: number, weights: number[]): number[] {
  const n = weights.length;
  if (n === 0) return [];
  if (total === n) return weights.map(() => 1);
  const base = total >= n ? 1 : 0;
  const rest = total - base * n;
  const wSum = weights.reduce((a, b) => a + Math.max(b, 1), 0);
  const exact = weights.map((w) => (rest * Math.max(w, 1)) / wSum);
  const out = exact.map((x) => base + Math.floor(x));
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact
    .map((x, i) => [x - Math.floor(x), i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; left > 0 && k < order.length; k++, left--) out[order[k][1]]++;
  return out;
}
