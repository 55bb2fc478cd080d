// The results directory (on the machine running benchgate) exists or can be created, is writable,
// and has room: fail when not writable or under 100 MiB free, warn under 1 GiB.

import { mkdir, rm, statfs, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { finding } from '../context.js';
import type { Finding } from '../finding.js';

const MiB = 1024 * 1024;

export async function checkResultsDir(dir: string): Promise<Finding[]> {
  const abs = resolve(dir);
  const title = `Results directory writable (${abs})`;
  try {
    await mkdir(abs, { recursive: true });
    const probe = join(abs, `.benchgate-probe-${process.pid}`);
    await writeFile(probe, 'ok');
    await rm(probe);
  } catch (e) {
    return [
      finding('results_dir', title, 'fail', {
        expected: 'a writable directory',
        found: (e as NodeJS.ErrnoException).code ?? (e as Error).message,
        hint: 'Point --out (output: in a plan) at a directory you can write.',
      }),
    ];
  }
  const fs = await statfs(abs);
  const freeMiB = Math.floor((fs.bavail * fs.bsize) / MiB);
  const status = freeMiB < 100 ? 'fail' : freeMiB < 1024 ? 'warn' : 'pass';
  return [
    finding('results_dir', title, status, {
      required: status === 'fail',
      expected: 'writable, at least 100 MiB free',
      found: `writable, ${freeMiB} MiB free`,
      evidence: [{ source: 'file', where: abs, excerpt: `statfs: ${freeMiB} MiB available` }],
    }),
  ];
}
