import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestMatches, keyedDigest, userKey, userKeyPath } from './user-key.js';

let home: string;
const savedHome = process.env.HOME;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bg-user-key-'));
  process.env.HOME = home;
});
afterEach(() => {
  process.env.HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
});

describe("this user's matrix key", () => {
  it('is made on first use, readable by this user only, and keys digests that only it matches', () => {
    const key = userKey();
    expect(key.length).toBe(32);
    expect((statSync(userKeyPath()).mode & 0o777).toString(8)).toBe('600');
    const digest = keyedDigest('token-1');
    expect(digestMatches('token-1', digest)).toBe(true);
    expect(digestMatches('token-2', digest)).toBe(false);
    expect(digestMatches('token-1', 'ab')).toBe(false);
  });

  it('refuses a key file others may read, and one that is not a key benchgate made, naming the file', () => {
    const path = userKeyPath();
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'ab'.repeat(32), { mode: 0o644 });
    chmodSync(path, 0o644);
    expect(() => userKey()).toThrow(
      `the matrix key ${path} must belong to this user and be readable by no one else (mode 0600); found owner`,
    );
    chmodSync(path, 0o600);
    writeFileSync(path, 'not a key');
    expect(() => userKey()).toThrow(`the matrix key ${path} is not a key benchgate made`);
  });
});
