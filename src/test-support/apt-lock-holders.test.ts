// .ci/apt-lock-holders, which .ci/provision runs when apt-get gave up waiting for its lock: it names the
// process holding a POSIX lock on a file (as apt and dpkg hold theirs), and nothing when the file is free.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const script = new URL('../../.ci/apt-lock-holders', import.meta.url).pathname;
const holders = async (file: string) => (await promisify(execFile)('bash', [script, file])).stdout;

describe('.ci/apt-lock-holders', () => {
  let locker: ChildProcess | null = null;
  afterEach(() => {
    locker?.kill();
    locker = null;
  });

  it('names the PID holding the lock, and nothing once it is released', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bg-apt-lock-')), 'lock-frontend');
    writeFileSync(file, '');
    expect(await holders(file)).toBe('');
    const lockSource = `import fcntl, sys, time\nf = open(${JSON.stringify(file)}, 'w')\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)\n`;
    const child = spawn('python3', ['-c', lockSource], { stdio: ['ignore', 'pipe', 'inherit'] });
    locker = child;
    await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
    expect(await holders(file)).toContain(`PID ${child.pid} `);
    child.kill();
    await new Promise((r) => child.once('exit', r));
    expect(await holders(file)).toBe('');
  });
});
