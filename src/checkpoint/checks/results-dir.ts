// The results directory (on the machine running benchgate) exists or can be created, is writable,
// and has room: fail when not writable or under 100 MiB free, warn under 1 GiB. A directory that does
// not exist yet is not created here (a `check` writes nothing): its nearest existing parent must be
// writable, and the room is that parent's.

import { constants } from 'node:fs';
import { access, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { finding } from '../context.js';
import type { Finding } from '../finding.js';

const MiB = 1024 * 1024;

/** The directory itself when it exists, else its nearest existing parent. */
async function nearestExisting(abs: string): Promise<string> {
  let at = abs;
  while (!(await stat(at).catch(() => null)) && dirname(at) !== at) at = dirname(at);
  return at;
}

/** Writes and removes a probe file in an existing directory, or asks whether a parent may be written. */
async function probeWritable(abs: string, existing: string): Promise<void> {
  if (existing !== abs) return access(existing, constants.W_OK);
  const probe = join(abs, `.benchgate-probe-${process.pid}`);
  await writeFile(probe, 'ok');
  await rm(probe);
}

export async function checkResultsDir(dir: string): Promise<Finding[]> {
  const abs = resolve(dir);
  const title = `Results directory writable (${abs})`;
  const existing = await nearestExisting(abs);
  try {
    if (!(await stat(existing)).isDirectory()) throw Object.assign(new Error(''), { code: 'ENOTDIR' });
    await probeWritable(abs, existing);
  } catch (e) {
    return [
      finding('results_dir', title, 'fail', {
        expected: 'a writable directory',
        found: (e as NodeJS.ErrnoException).code ?? (e as Error).message,
        hint: 'Point --out (output: in a plan) at a directory you can write.',
      }),
    ];
  }
  const fs = await statfs(existing);
  const freeMiB = Math.floor((fs.bavail * fs.bsize) / MiB);
  const status = freeMiB < 100 ? 'fail' : freeMiB < 1024 ? 'warn' : 'pass';
  const created = existing === abs ? '' : ` (not there yet; can be created in ${existing})`;
  return [
    finding('results_dir', title, status, {
      required: status === 'fail',
      expected: 'writable, at least 100 MiB free',
      found: `writable${created}, ${freeMiB} MiB free`,
      evidence: [{ source: 'file', where: existing, excerpt: `statfs: ${freeMiB} MiB available` }],
    }),
  ];
}
