import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalHost } from '../hosts/local-host.js';
import type { ResolvedConfig } from './config-plan.js';
import { launchServer } from './launch.js';

const dir = await mkdtemp(join(tmpdir(), 'bg-launch-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

function config(cwd: string): ResolvedConfig {
  return {
    name: 'wrong-cwd',
    argv: [process.execPath, '-e', 'setTimeout(() => {}, 100)'],
    env: {},
    cwd,
    hostSpec: 'local',
    url: 'http://127.0.0.1:9',
    port: 9,
    stop: { signal: 'SIGTERM', command: undefined, graceS: 1 },
    readyTimeoutS: 10,
    // biome-ignore lint/suspicious/noExplicitAny: launching reads no plan
    plan: {} as any,
    launchFingerprint: 'x',
  };
}

describe('launching a server', () => {
  it('names a missing working directory instead of blaming the command ("spawn node ENOENT")', async () => {
    const missing = join(dir, 'no-such-dir');
    const run = launchServer(new LocalHost(), config(missing), dir);
    await expect(run).rejects.toMatchObject({ code: 'BG_E_LAUNCH' });
    await expect(run).rejects.toThrow(
      `config "wrong-cwd": the launch working directory ${missing} (launch.cwd) does not exist on local`,
    );
  });

  it('records the start time of what it launched, so --kill-leftovers can prove it later', async () => {
    const s = await launchServer(new LocalHost(), config(dir), dir);
    expect(s.startTime).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    await s.proc.exited;
  });
});
