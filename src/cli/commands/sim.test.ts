import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../sim/index.js';
import { cliNodeArgs } from '../test-support/cli-argv.js';
import { splitSimArgv } from './sim.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(args: string[]): Run {
  const child = spawn(process.execPath, [...cliNodeArgs(), 'sim', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function urlOf(r: Run): Promise<string> {
  for (;;) {
    const m = /http:\/\/127\.0\.0\.1:\d+/.exec(
      r
        .stdout()
        .split('\n')
        .find((l) => l.startsWith('benchgate sim:')) ?? '',
    );
    if (m) return m[0];
    if (r.child.exitCode !== null) throw new Error(`sim exited: ${r.stderr()}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('benchgate sim (CLI)', () => {
  it('prints its URL while still loading, writes engine logs to stdout, and exits 0 on SIGTERM', async () => {
    // a 5 s load: the test never waits for it, and a busy machine still asks inside it
    const r = run(['--port', '0', '--load-time', '5', '--tp-size', '8']);
    const url = await urlOf(r);
    expect((await fetch(`${url}/health`)).status).toBe(503);
    expect(r.stdout()).toContain('server_args=ServerArgs(');
    r.child.kill('SIGTERM');
    expect(await r.exit).toBe(0);
  });

  it('says how long the model loads when it listens, and prints the load lines as loading happens (issue 24 item 13)', async () => {
    const r = run(['--port', '0', '--load-time', '12']);
    const url = await urlOf(r);
    const listening = r
      .stdout()
      .split('\n')
      .find((l) => l.startsWith('benchgate sim:'))!;
    expect(listening).toMatch(/; the model loads for 12 s \(--load-time\): \/health answers 503 until then$/);
    // the load has begun, and its progress moves, while /health still answers 503
    expect(r.stdout()).toContain('Load weight begin.');
    while (!r.stdout().includes('Loading safetensors checkpoint shards:  10% Completed | 1/10'))
      await new Promise((res) => setTimeout(res, 50));
    expect((await fetch(`${url}/health`)).status).toBe(503);
    expect(r.stdout()).not.toContain('Load weight end.');
    r.child.kill('SIGTERM');
    expect(await r.exit).toBe(0);
  }, 30_000);

  it('loads for at most 5 s by default and says what the profile models instead', async () => {
    const r = run(['--port', '0']);
    await urlOf(r);
    expect(r.stdout()).toContain(
      'the model loads for 5.0 s (the story-moe-int4-8xpcie profile models 600 s; --load-time 600 waits that long)',
    );
    while (!r.stdout().includes('benchgate sim: ready after'))
      await new Promise((res) => setTimeout(res, 50));
    expect(r.stdout().indexOf('Load weight end.')).toBeGreaterThan(r.stdout().indexOf('Load weight begin.'));
    r.child.kill('SIGTERM');
    expect(await r.exit).toBe(0);
  }, 30_000);

  it('exits non-zero after logging the traceback when crash-on-first-decode fires', async () => {
    const r = run(['--load-time', '0', '--time-scale', '1000', '--fault', 'crash-on-first-decode']);
    const url = await urlOf(r);
    while ((await fetch(`${url}/health`)).status !== 200) await new Promise((res) => setTimeout(res, 20));
    await fetch(`${url}/generate`, {
      method: 'POST',
      body: JSON.stringify({ text: 'a', sampling_params: { max_new_tokens: 5 } }),
    }).catch(() => undefined);
    const code = await r.exit;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(r.stdout()).toContain("AttributeError: 'NoneType' object has no attribute");
  });

  it('rejects an unknown engine flag with the engine argparse line on stderr and exit 2', async () => {
    const r = run(['--no-such-flag']);
    expect(await r.exit).toBe(2);
    expect(r.stderr().trim().split('\n')).toEqual([
      'benchgate: launch_server.py: error: unrecognized arguments: --no-such-flag [BG_E_USAGE]',
    ]);
  });

  it('rejects a port in use and an invalid profile file with one line each', async () => {
    const h = await startSimulator({ loadTimeS: 0 });
    try {
      const busy = run(['--port', String(h.port)]);
      expect(await busy.exit).toBe(1);
      expect(busy.stderr().trim()).toBe(
        `benchgate: Expected port ${h.port} on 127.0.0.1 to be free; it is already in use. [BG_E_SIM]`,
      );
    } finally {
      await h.close();
    }
    const file = join(mkdtempSync(join(tmpdir(), 'bg-cli-')), 'p.yaml');
    writeFileSync(file, 'numGpus: 8\nkvCapacityTokens: lots\n');
    const bad = run(['--profile', file]);
    expect(await bad.exit).toBe(2);
    expect(bad.stderr()).toContain(
      `Profile ${file}:2: key "kvCapacityTokens" expects a non-negative number; found "lots".`,
    );
  });
});

describe('splitSimArgv', () => {
  it('separates the simulator flags from engine flags, keeping engine flags in order', () => {
    const o = splitSimArgv([
      '--tp-size',
      '8',
      '--fault',
      'stall-stream',
      '--time-scale=50',
      '--speculative-algorithm',
      'EAGLE3',
      '--fault',
      'http-errors=0.1',
    ]);
    expect(o.engineArgs).toEqual(['--tp-size', '8', '--speculative-algorithm', 'EAGLE3']);
    expect(o.faults).toEqual(['stall-stream', 'http-errors=0.1']);
    expect(o.timeScale).toBe(50);
  });
});
