// This user's matrix key: 32 random bytes kept in ~/.local/state/benchgate/matrix-key (directory 0700,
// file 0600), made on first use. It keys the HMAC that signs matrix-state.json (state-integrity.ts) and
// the digest of each launch's token (launch-proof.ts), so neither can be forged by someone who can
// write a matrix directory but not this user's home. A key file another user owns, or that others
// may read or write, is refused: it would prove nothing.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { BenchgateError } from '../core/errors.js';

const KEY_BYTES = 32;

/** Where the key lives (under the home of the user running benchgate). */
export const userKeyPath = (): string => join(homedir(), '.local', 'state', 'benchgate', 'matrix-key');

let cached: { path: string; key: Buffer } | null = null;

/** Creates the key file (exclusive, 0600) when missing; a concurrent creator's file is read instead. */
function createKey(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, randomBytes(KEY_BYTES).toString('hex'));
    closeSync(fd);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/** The key, read (or made) once per process; refused when the file is not this user's alone. */
export function userKey(): Buffer {
  const path = userKeyPath();
  if (cached?.path === path) return cached.key;
  try {
    createKey(path);
    chmodSync(dirname(path), 0o700);
    const fd = openSync(path, 'r');
    try {
      const st = fstatSync(fd);
      const uid = process.getuid?.() ?? st.uid;
      if (st.uid !== uid || (st.mode & 0o077) !== 0)
        throw new BenchgateError(
          'BG_E_RUN_DIR',
          `the matrix key ${path} must belong to this user and be readable by no one else (mode 0600); found owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)}. Remove it to make a new one (earlier matrix directories can then not be resumed).`,
        );
      const hex = readFileSync(fd, 'utf8').trim();
      if (!/^[0-9a-f]{64}$/.test(hex))
        throw new BenchgateError(
          'BG_E_RUN_DIR',
          `the matrix key ${path} is not a key benchgate made; remove it to make a new one.`,
        );
      cached = { path, key: Buffer.from(hex, 'hex') };
      return cached.key;
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if (e instanceof BenchgateError) throw e;
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `could not read or make the matrix key ${path}: ${(e as Error).message}.`,
    );
  }
}

/** HMAC-SHA256 of `text` under this user's key, hex. */
export const keyedDigest = (text: string): string =>
  createHmac('sha256', userKey()).update(text).digest('hex');

/** True when `digest` is the keyed digest of `text` (compared in constant time). */
export function digestMatches(text: string, digest: string): boolean {
  const want = Buffer.from(keyedDigest(text), 'hex');
  const got = Buffer.from(digest, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}
