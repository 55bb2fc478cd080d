import { describe, expect, it } from 'vitest';
import {
  describeNoValue,
  EXCERPT_MAX_CHARS,
  excerptOf,
  readUnreadable,
  readValue,
  valueOrNull,
} from './read-result.js';

describe('read results', () => {
  it('quotes binary garbage as printable escapes', () => {
    expect(excerptOf('\u0000\u0001ok\u001b[0m')).toBe('\\x00\\x01ok\\x1b[0m');
  });

  it('cuts long input and states its full length', () => {
    const big = 'x'.repeat(10_000_000);
    const ex = excerptOf(big);
    expect(ex.length).toBeLessThan(EXCERPT_MAX_CHARS + 60);
    expect(ex).toContain('10000000 characters in all');
  });

  it('names empty input as empty', () => {
    expect(readUnreadable('no rows', '')).toEqual({
      kind: 'unreadable',
      reason: 'no rows',
      excerpt: '(empty)',
    });
  });

  it('gives no value for unreadable input and says why', () => {
    const r = readUnreadable<number[]>('not CSV', 'garbage');
    expect(valueOrNull(r)).toBeNull();
    expect(describeNoValue(r)).toBe('unreadable: not CSV (got: garbage)');
    expect(valueOrNull(readValue([1]))).toEqual([1]);
  });
});
