import { describe, expect, it } from 'vitest';
import { PrefixCache } from './prefix-cache.js';

const seq = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('simulated prefix cache', () => {
  it('hits the shared prefix in whole blocks and never the last prompt token', () => {
    const c = new PrefixCache(4, 1000);
    expect(c.lookupAndInsert([...seq(0, 10), 500, 501])).toBe(0);
    expect(c.lookupAndInsert([...seq(0, 10), 900, 901])).toBe(8);
    expect(c.lookupAndInsert(seq(0, 8))).toBe(7);
    expect(c.stats).toEqual({ queryTokens: 32, hitTokens: 15 });
  });

  it('misses every block after the first differing one', () => {
    const c = new PrefixCache(1, 1000);
    c.lookupAndInsert([1, 2, 3, 4, 5]);
    expect(c.lookupAndInsert([1, 9, 3, 4, 5])).toBe(1);
  });

  it('keeps a finished request’s output after its prompt, without counting it as a query', () => {
    const c = new PrefixCache(1, 1000);
    expect(c.lookupAndInsert([1, 2, 3])).toBe(0);
    c.insertFinished([1, 2, 3], [40, 41]);
    // the next turn: prompt, reply, new message
    expect(c.lookupAndInsert([1, 2, 3, 40, 41, 7, 8])).toBe(5);
    expect(c.lookupAndInsert([1, 2, 3, 40, 99])).toBe(4);
    expect(c.stats).toEqual({ queryTokens: 15, hitTokens: 9 });
  });

  it('evicts the least recently used blocks beyond its capacity', () => {
    const c = new PrefixCache(1, 4);
    c.lookupAndInsert([1, 2, 3, 4]);
    c.lookupAndInsert([7, 8, 9, 10]);
    expect(c.lookupAndInsert([1, 2, 3, 4, 5])).toBe(0);
  });
});
