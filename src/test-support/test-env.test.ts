// The suite never reads the user's machine: every test process has an empty home of its own under the
// run's temporary folder, none of the shell's BENCHGATE_* settings reach it, and the folder is gone when the run ends.
// Proven from inside (this process) and from outside (a nested vitest run started with a calibration
// file in its home and BENCHGATE_CALIBRATION set, which must see neither and leave its TMPDIR empty).

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultCalibrationPath, readCalibration } from '../session/calibration-file.js';
import { RUN_ROOT_PREFIX, removeAbandonedRunRoots, SUITE_SETTINGS } from './test-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NESTED = 'BG_TEST_ENV_NESTED';
const INSIDE = "has an empty home inside the run folder and only the suite's BENCHGATE_* settings";
const inside = (dir: string, parent: string) => !relative(parent, dir).startsWith('..');

describe('the environment every test process runs in', () => {
  it(INSIDE, () => {
    expect(basename(tmpdir())).toMatch(new RegExp(`^${RUN_ROOT_PREFIX}`));
    expect(homedir()).not.toBe(userInfo().homedir);
    expect(inside(homedir(), tmpdir())).toBe(true);
    expect(readdirSync(homedir()).sort()).toEqual(['.cache', '.config', '.local']);
    const settings = Object.entries(process.env).filter(([k]) => k.startsWith('BENCHGATE_'));
    expect(Object.fromEntries(settings)).toEqual(SUITE_SETTINGS);
    expect(defaultCalibrationPath()).toBe(join(homedir(), '.cache', 'benchgate', 'calibration.json'));
    expect(readCalibration()).toEqual({ kind: 'absent' });
    // a child a test starts (the CLI, a simulator) inherits the same home and temporary folder
    const child = spawnSync(
      process.execPath,
      ['-e', 'const os=require("os");console.log(os.homedir(),os.tmpdir())'],
      {
        encoding: 'utf8',
      },
    );
    expect(child.stdout.trim()).toBe(`${homedir()} ${tmpdir()}`);
  });

  it.skipIf(process.env[NESTED])(
    'ignores a calibration file in the home the run started from, and leaves nothing in its TMPDIR',
    () => {
      const user = mkdtempSync(join(tmpdir(), 'user-'));
      const home = join(user, 'home');
      const tmp = join(user, 'tmp');
      mkdirSync(join(home, '.cache', 'benchgate'), { recursive: true });
      mkdirSync(tmp);
      // unreadable on purpose: read, either file would turn 'absent' into 'unreadable'
      writeFileSync(join(home, '.cache', 'benchgate', 'calibration.json'), 'not a calibration');
      writeFileSync(join(user, 'elsewhere.json'), 'not a calibration either');
      const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
      const r = spawnSync(
        process.execPath,
        [vitest, 'run', 'src/test-support/test-env.test.ts', '-t', 'has an empty home', '--reporter=dot'],
        {
          cwd: ROOT,
          encoding: 'utf8',
          env: {
            ...process.env,
            HOME: home,
            TMPDIR: tmp,
            BENCHGATE_CALIBRATION: join(user, 'elsewhere.json'),
            [NESTED]: '1',
            NO_COLOR: '1',
          },
          timeout: 120_000,
        },
      );
      const out = `${r.stdout}\n${r.stderr}`;
      expect(r.status, out).toBe(0);
      expect(out).toMatch(/Tests\s+1 passed \| 2 skipped \(3\)/);
      expect(readdirSync(realpathSync(tmp))).toEqual([]);
    },
  );

  it('removes the folder of an earlier run whose process is gone, and no other', () => {
    const parent = mkdtempSync(join(tmpdir(), 'parent-'));
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const make = (name: string, owner: string | null) => {
      mkdirSync(join(parent, name));
      if (owner !== null) writeFileSync(join(parent, name, 'owner.pid'), owner);
    };
    make(`${RUN_ROOT_PREFIX}gone`, String(gone));
    make(`${RUN_ROOT_PREFIX}live`, String(process.pid));
    make(`${RUN_ROOT_PREFIX}no-owner`, null);
    make('bg-other-gone', String(gone));
    expect(removeAbandonedRunRoots(parent)).toEqual([join(parent, `${RUN_ROOT_PREFIX}gone`)]);
    expect(readdirSync(parent).sort()).toEqual([
      'bg-other-gone',
      `${RUN_ROOT_PREFIX}live`,
      `${RUN_ROOT_PREFIX}no-owner`,
    ]);
  });
});
