// What proves a process is one benchgate launched (issue 33 item 2): a PID and a start time anyone can
// read from /proc, so they prove nothing alone. Each launch gets a random token in its environment
// (BENCHGATE_LAUNCH_TOKEN, inherited by the server's workers); the state keeps only the token's keyed
// digest (user-key.ts). A process is proven when its /proc/<pid>/environ carries a token whose digest is
// the recorded one; an environment benchgate cannot read (another user's process) proves nothing.

import { randomBytes } from 'node:crypto';
import type { ProcessHost } from '../hosts/host.js';
import { digestMatches, keyedDigest } from './user-key.js';

export const LAUNCH_TOKEN_ENV = 'BENCHGATE_LAUNCH_TOKEN';

/** A fresh token for one launch and the digest the state records of it. */
export function newLaunchToken(): { token: string; proof: string } {
  const token = randomBytes(32).toString('hex');
  return { token, proof: keyedDigest(token) };
}

/** Why `pid` is not proven to carry the launch whose digest is `proof`, or null when it is. */
export async function tokenProblem(
  host: ProcessHost,
  pid: number,
  proof: string | null,
): Promise<string | null> {
  if (proof === null) return 'no launch token was recorded for it (a state of an earlier version)';
  const read = await host.environValue(pid, LAUNCH_TOKEN_ENV).catch(() => ({ kind: 'unreadable' as const }));
  if (read.kind === 'unreadable') return "its environment cannot be read (another user's process?)";
  if (read.kind === 'absent') return 'its environment carries no benchgate launch token';
  return digestMatches(read.value, proof) ? null : "its launch token is not the recorded launch's";
}
