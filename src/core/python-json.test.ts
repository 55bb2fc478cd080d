import { describe, expect, it } from 'vitest';
import { parsePythonJson, tryParsePythonJson } from './python-json.js';

describe('parsePythonJson', () => {
  it('accepts bare Infinity, -Infinity and NaN outside strings and leaves strings alone', () => {
    const v = parsePythonJson(
      '{"a": Infinity, "b": -Infinity, "c": NaN, "d": "NaN Infinity", "e": [NaN], "f": "say \\"NaN\\""}',
    );
    expect(v).toEqual({
      a: Number.POSITIVE_INFINITY,
      b: Number.NEGATIVE_INFINITY,
      c: Number.NaN,
      d: 'NaN Infinity',
      e: [Number.NaN],
      f: 'say "NaN"',
    });
  });

  it('throws a SyntaxError for text that is not JSON', () => {
    expect(() => parsePythonJson('{"a": 1,')).toThrow(SyntaxError);
    expect(() => parsePythonJson('{"a": Infinity,')).toThrow(SyntaxError);
  });
});

describe('tryParsePythonJson', () => {
  it('returns undefined for text that is not JSON (including truncated JSON) instead of throwing', () => {
    expect(tryParsePythonJson('Not Found')).toBeUndefined();
    expect(tryParsePythonJson('{"a": 1,')).toBeUndefined();
    expect(tryParsePythonJson('')).toBeUndefined();
    expect(tryParsePythonJson(' [Infinity] \n')).toEqual([Number.POSITIVE_INFINITY]);
  });
});
