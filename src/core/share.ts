// How a count splits over N parts, the one rule both sides of sharding use: the load runner sends a
// shard's share (load/shard.ts) and `merge` bounds a shard's records by the same share (results/).

/** Part `index`'s share of `total` items split over `count` parts (lower indexes take the remainder). */
export function shareOf(total: number, index: number, count: number): number {
  return Math.floor(total / count) + (index < total % count ? 1 : 0);
}
