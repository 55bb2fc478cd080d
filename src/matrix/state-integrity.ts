// What makes matrix-state.json trustworthy enough to aim --resume (issue 33 item 2): it is signed with
// an HMAC-SHA256 over its canonical JSON, keyed by this user's matrix key (user-key.ts), and it must be
// a regular file this user owns that no one else may write. A file edited by hand, written by another
// user or copied from another machine fails the check and is refused whole: nothing in it is believed.

import { chmodSync, lstatSync } from 'node:fs';
import { canonicalJson } from '../checkpoint/verified-target.js';
import { BenchgateError } from '../core/errors.js';
import { digestMatches, keyedDigest } from './user-key.js';

const PREFIX = 'hmac-sha256:';

/** The state with its signature (`integrity`) over everything else in it. */
export function signed<T extends object>(state: T): T & { integrity: string } {
  const { integrity: _old, ...rest } = state as T & { integrity?: string };
  return { ...(rest as T), integrity: `${PREFIX}${keyedDigest(canonicalJson(rest))}` };
}

/** Leaves a written state file readable and writable by this user only (a umask of 002 would let the group write it). */
export function keepPrivate(file: string): void {
  chmodSync(file, 0o600);
}

const refuse = (file: string, why: string): never => {
  throw new BenchgateError(
    'BG_E_RUN_DIR',
    `${file} ${why}; it is not resumed (nothing in it is trusted to aim a signal). Start a new matrix, or restore the file benchgate wrote.`,
  );
};

/** Refuses a state file that is not a regular file of this user's, or that others may write. */
export function checkStateFileOwner(file: string): void {
  const st = lstatSync(file);
  if (!st.isFile()) refuse(file, 'is not a regular file');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid)
    refuse(file, `belongs to user ${st.uid}, not to this user (${uid})`);
  if ((st.mode & 0o022) !== 0)
    refuse(file, `may be written by others (mode ${(st.mode & 0o777).toString(8)})`);
}

/** The parsed state without its signature, once the signature is this user's over exactly that content. */
export function verifiedContent(file: string, parsed: Record<string, unknown>): Record<string, unknown> {
  const { integrity, ...rest } = parsed;
  if (typeof integrity !== 'string' || !integrity.startsWith(PREFIX))
    refuse(file, 'carries no signature (written by hand, or by a benchgate version before signed states)');
  const digest = (integrity as string).slice(PREFIX.length);
  if (!/^[0-9a-f]{64}$/.test(digest) || !digestMatches(canonicalJson(rest), digest))
    refuse(
      file,
      "fails its integrity check: it was changed since benchgate wrote it, or written under another user's key",
    );
  return rest;
}
