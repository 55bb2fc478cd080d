import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMiniOpenAi } from '../../client/test-support/mini-openai.js';
import type { ScriptedServer } from '../../client/test-support/scripted-server.js';
import type { RunSummary } from '../../metrics/summary.js';
import type { RequestRecord } from '../../records/request-record.js';
import { CAN_MOUNT_TMPFS, mountTinyFs, NEEDS_ROOT } from '../../results/test-support/tiny-fs.js';
import { startCli } from '../test-support/cli-process.js';

const start = (args: string[]) => startCli(['bench', ...args]);
const run = (args: string[]) => start(args).done;

let srv: ScriptedServer;
let html: ScriptedServer;
beforeAll(async () => {
  srv = await startMiniOpenAi({ itlMs: 2 });
  html = await startMiniOpenAi({ html: true });
});
afterAll(async () => {
  await srv.close();
  await html.close();
});

const tmp = () => mkdtempSync(join(tmpdir(), 'bg-cli-'));

async function waitFor(pred: () => boolean, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function onlyRunDir(out: string): string {
  const dirs = readdirSync(out);
  expect(dirs).toHaveLength(1);
  return join(out, dirs[0]);
}

/** A 400-request run long enough to be interrupted part-way. */
function longRunArgs(out: string, concurrency: string): string[] {
  return [
    '--url',
    srv.url,
    '--engine',
    'openai',
    '--concurrency',
    concurrency,
    '--requests',
    '400',
    '--input-tokens',
    '8',
    '--output-tokens',
    '32',
    '--out',
    out,
  ];
}

/** The text of the first run directory's requests.jsonl, or null before it exists. */
function recordsSoFar(out: string): string | null {
  const d = existsSync(out) ? readdirSync(out) : [];
  if (d.length === 0) return null;
  const f = join(out, d[0], 'requests.jsonl');
  return existsSync(f) ? readFileSync(f, 'utf8') : null;
}

describe('benchgate bench: bad input gets one clear message and a non-zero exit', () => {
  it('--concurrency 0', async () => {
    const r = await run(['--url', srv.url, '--concurrency', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--concurrency expects .*positive integers; found "0"/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('--concurrency with non-numbers', async () => {
    const r = await run(['--url', srv.url, '--concurrency', '1,two']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('found "two"');
  });

  it('an invalid plan file, naming file, line and key', async () => {
    const dir = tmp();
    const plan = join(dir, 'plan.yaml');
    writeFileSync(
      plan,
      'target:\n  url: http://127.0.0.1:1\nload:\n  kind: concurrency\n  levels: [1, -4]\n',
    );
    const r = await run([plan]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('BG_E_PLAN_INVALID');
    expect(r.stderr).toMatch(/plan\.yaml:5:\d+/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unreachable URL', async () => {
    const out = tmp();
    const r = await run(['--url', 'http://127.0.0.1:1', '--concurrency', '1', '--out', out]);
    // the checkpoint gate runs first (it honours expect.wait): its reachable check names the failure
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Target is reachable — could not con/);
    expect(r.stderr).toContain('failed: reachable');
    expect(r.stderr).toContain('BG_E_CHECK_FAILED');
    expect(readdirSync(out)).toEqual([]);
  });

  it('a server answering HTML', async () => {
    const out = tmp();
    const r = await run(['--url', html.url, '--concurrency', '1', '--engine', 'openai', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('BG_E_NOT_SSE');
    expect(r.stderr).toContain('text/html');
  });

  it('a model the server does not serve', async () => {
    const r = await run([
      '--url',
      srv.url,
      '--engine',
      'openai',
      '--model',
      'ghost',
      '--concurrency',
      '1',
      '--out',
      tmp(),
    ]);
    // the checkpoint gate runs first and fails on the model it cannot find (a target error, exit 1)
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ghost');
  });
});

describe('benchgate bench: output and interruption', () => {
  it('--json prints only the run summary JSON on stdout', async () => {
    const out = tmp();
    const r = await run([
      '--url',
      srv.url,
      '--engine',
      'openai',
      '--concurrency',
      '1,2',
      '--requests',
      '4',
      '--input-tokens',
      '16',
      '--output-tokens',
      '4',
      '--out',
      out,
      '--json',
    ]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as RunSummary;
    expect(summary.schema).toBe('benchgate.summary/1');
    expect(summary.levels.map((l) => l.level.value)).toEqual([1, 2]);
    expect(summary.levels.every((l) => l.requests.completed === 4)).toBe(true);
    expect(existsSync(join(onlyRunDir(out), 'summary.csv'))).toBe(true);
  });

  it('after SIGKILL the run directory keeps a manifest and every completed request as a whole JSON line', async () => {
    const out = tmp();
    const { child, done } = start(longRunArgs(out, '4'));
    await waitFor(() => (recordsSoFar(out) ?? '').split('\n').length > 20);
    child.kill('SIGKILL');
    const r = await done;
    expect(r.signal).toBe('SIGKILL');
    const dir = onlyRunDir(out);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.schema).toBe('benchgate.manifest/1');
    expect(manifest.finishedAt).toBeNull();
    const text = readFileSync(join(dir, 'requests.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const records = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RequestRecord);
    expect(records.length).toBeGreaterThanOrEqual(20);
    expect(records.every((x) => x.error === null && x.levelIndex === 0)).toBe(true);
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
  });

  async function interruptWith(sig: NodeJS.Signals, exitCode: number, extra: string[] = []): Promise<void> {
    const out = tmp();
    const { child, done } = start([...longRunArgs(out, '2'), ...extra]);
    await waitFor(() => (recordsSoFar(out) ?? '').length > 0);
    child.kill(sig);
    const r = await done;
    expect(r.code).toBe(exitCode);
    const dir = onlyRunDir(out);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.incomplete?.reason).toMatch(/interrupted/);
    const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBe(summary.levels[0].requests.completed + summary.levels[0].requests.failed);
    expect(r.stdout).toContain('run incomplete');
  }

  it('Ctrl-C writes what is complete, marks the run incomplete and exits 130', async () => {
    await interruptWith('SIGINT', 130);
  });

  it('SIGTERM is treated like Ctrl-C: what is complete is written, the summary printed, exit 143', async () => {
    await interruptWith('SIGTERM', 143);
  });

  it('Ctrl-C reaches every worker thread of --workers 2: same stop, exit 130', async () => {
    await interruptWith('SIGINT', 130, ['--workers', '2']);
  });
});

describe('benchgate bench --workers', () => {
  it('sends each level from two worker threads: every request once, one record writer', async () => {
    const out = tmp();
    const r = await run([
      ...longRunArgs(out, '1,3').map((a) => (a === '400' ? '12' : a)),
      '--workers',
      '2',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as RunSummary;
    expect(summary.levels.map((l) => l.requests.completed)).toEqual([12, 12]);
    expect(summary.levels.every((l) => l.client.workers?.length === 2)).toBe(true);
    const records = readFileSync(join(onlyRunDir(out), 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(new Set(records.map((l) => (JSON.parse(l) as RequestRecord).id)).size).toBe(24);
  });

  it('refuses a count that is not a positive integer or auto', async () => {
    const r = await run(['--url', srv.url, '--workers', 'two']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--workers expects a positive integer; found "two"/);
  });
});

describe('benchgate bench with a piped stderr', () => {
  it('prints a plain progress line per level (no rewritten line, no carriage return)', async () => {
    const out = tmp();
    const r = await run(longRunArgs(out, '1,2').map((a) => (a === '400' ? '10' : a)));
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).toMatch(/^level 1\/2 concurrency 1 {2}10\/10 done/m);
    expect(r.stderr).toMatch(/^level 2\/2 concurrency 2 {2}10\/10 done/m);
  });
});

describe('benchgate bench and a full disk', () => {
  it('refuses to start when the output directory has too little free space, naming it (exit 3)', async () => {
    const out = tmp();
    // 100 levels of a million requests (the most one level may plan) need far more than the disk holds
    const levels = Array.from({ length: 100 }, (_, i) => i + 1).join(',');
    const r = await run(longRunArgs(out, levels).map((a) => (a === '400' ? '1000000' : a)));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`not enough free space for results in ${out}`);
    expect(r.stderr).toContain('[BG_E_DISK]');
    expect(readdirSync(out)).toEqual([]);
  });

  it.skipIf(!CAN_MOUNT_TMPFS)(
    `a disk that fills mid-run: the file is named, complete lines kept, no temp file, exit 3 (${NEEDS_ROOT})`,
    async () => {
      const fs = mountTinyFs(104 * 1024); // just above the 100 MiB floor and this run's estimate
      try {
        const { done } = start(longRunArgs(fs.dir, '2'));
        await waitFor(() => (recordsSoFar(fs.dir) ?? '').length > 0);
        fs.fill();
        const r = await done;
        expect(r.stderr).toMatch(
          /could not write \S+(requests\.jsonl|level-00\.json|summary\.json): the disk is full \(ENOSPC\)/,
        );
        expect(r.stderr).not.toContain('internal error');
        expect(r.code).toBe(3);
        const dir = join(fs.dir, readdirSync(fs.dir).find((d) => d !== 'filler') ?? '');
        expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
        const text = readFileSync(join(dir, 'requests.jsonl'), 'utf8');
        expect(text.endsWith('\n')).toBe(true);
        for (const l of text.trimEnd().split('\n')) JSON.parse(l);
      } finally {
        fs.unmount();
      }
    },
  );
});
