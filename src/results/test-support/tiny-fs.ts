// A real small filesystem for full-disk tests: a tmpfs of a given size mounted in a temp directory.
// Needs root (mount); tests skip with that reason otherwise.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sayWhySkipped } from '../../test-support/needs.js';

/** True when this process may mount a tmpfs (root on Linux with mount(8) available). */
export const CAN_MOUNT_TMPFS = process.platform === 'linux' && process.getuid?.() === 0 && canMount();

function canMount(): boolean {
  try {
    const fs = mountTinyFs(64);
    fs.unmount();
    return true;
  } catch {
    return false;
  }
}

export const NEEDS_ROOT = 'needs root to mount a small tmpfs (a real full disk)';

if (!CAN_MOUNT_TMPFS)
  sayWhySkipped('the full-disk tests', `${NEEDS_ROOT}; run the suite as root to include them`);

export interface TinyFs {
  dir: string;
  /** Writes a file that takes every byte left (the disk is then full). */
  fill(): void;
  unmount(): void;
}

export function mountTinyFs(sizeKiB: number): TinyFs {
  const dir = mkdtempSync(join(tmpdir(), 'bg-tinyfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k`, 'tmpfs', dir], { stdio: 'ignore' });
  return {
    dir,
    fill() {
      for (const size of [1024 * 1024, 4096, 1]) {
        const chunk = Buffer.alloc(size, 120);
        for (;;) {
          try {
            writeFileSync(join(dir, 'filler'), chunk, { flag: 'a' });
          } catch {
            break;
          }
        }
      }
    },
    unmount() {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
