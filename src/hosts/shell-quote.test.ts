import { describe, expect, it } from 'vitest';
import { execLocal } from './local-host.js';
import { shellJoin, shellQuote } from './shell-quote.js';

describe('shellQuote', () => {
  it('leaves plain words alone and quotes the empty string', () => {
    expect(shellQuote('--tp-size=8')).toBe('--tp-size=8');
    expect(shellQuote('')).toBe("''");
  });

  it('round-trips hostile values through a real sh unchanged', async () => {
    const values = [
      "a'b",
      '$(touch /tmp/x)',
      '`id`',
      'a;b',
      'line1\nline2',
      '"dq"',
      '\\',
      '*',
      '~',
      '!x',
      ' spaced ',
    ];
    const r = await execLocal(['sh', '-c', `printf '%s\\0' ${shellJoin(values)}`]);
    expect(r.stdout.split('\0').slice(0, -1)).toEqual(values);
  });
});
