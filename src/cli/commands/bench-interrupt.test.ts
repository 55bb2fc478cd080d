// The first Ctrl-C (or SIGTERM) of `bench` against a server that stops answering: the real CLI against the
// simulator in its own process, frozen with SIGSTOP once the level runs (it still accepts connections
// but answers nothing, as a wedged engine). Every wait on the stop path (in-flight streams, the telemetry
// scrape, the prefix-cache and speculative counters read at the level's end, the store) is cut by the
// interrupt, so the run is written and the process exits long before any of the server's timeouts.
// Before, each of the two counter reads waited its 5 s timeout: the stop took 12.7 s.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LevelSummary, RunSummary } from '../../metrics/summary.js';
import type { RequestRecord } from '../../records/request-record.js';
import { cliNodeArgs } from '../test-support/cli-argv.js';
import { startCli } from '../test-support/cli-process.js';

/**
 * The stop must come well within the frozen server's shortest timeout on the stop path (two 5 s reads
 * in turn, so at least 10 s before the fix). The figure itself (0.3–1.0 s from SIGINT to exit on a
 * loaded 2-core host) is measured by `npm run bench:interrupt`, not asserted here.
 */
const STOP_BOUND_MS = 9000;

const started: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of started.splice(0)) {
    c.kill('SIGCONT');
    c.kill('SIGKILL');
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The simulator as its own process (so SIGSTOP freezes it whole); resolves with its URL. */
async function startSimProcess(faults: string[] = []): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(
    process.execPath,
    [...cliNodeArgs(), 'sim', '--port', '0', '--load-time', '0', ...faults.flatMap((f) => ['--fault', f])],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  started.push(proc);
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout?.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+?) /.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.on('exit', () => reject(new Error(`the simulator exited: ${out}`)));
  });
  return { url, proc };
}

async function waitFor(pred: () => boolean, timeoutMs = 120_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; !pred(); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > until) throw new Error('condition not reached');
}

function recordCount(out: string): number {
  const [run] = existsSync(out) ? readdirSync(out) : [];
  const f = run ? join(out, run, 'requests.jsonl') : '';
  return run && existsSync(f) ? readFileSync(f, 'utf8').split('\n').length - 1 : 0;
}

/**
 * Runs `bench` at concurrency 4 with long answers, lets the level start (`freeze`: stops the server once
 * records exist), sends `sig` and returns how long the exit took and what was written.
 */
async function interruptBench(o: {
  sig: NodeJS.Signals;
  freeze: boolean;
  faults?: string[];
  extra?: string[];
}) {
  const sim = await startSimProcess(o.faults);
  const out = mkdtempSync(join(tmpdir(), 'bg-interrupt-'));
  dirs.push(out);
  const args = ['--concurrency', '4', '--requests', '5000', '--input-tokens', '16', '--output-tokens', '512'];
  const { child, done } = startCli(['bench', '--url', sim.url, ...args, '--out', out, ...(o.extra ?? [])]);
  started.push(child);
  let stderr = '';
  child.stderr?.on('data', (c) => {
    stderr += c;
  });
  if (o.freeze) {
    await waitFor(() => recordCount(out) > 0);
    sim.proc.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, 300));
  } else {
    // busy: the level is under way, every stream in flight
    await waitFor(() => /^level 1\/1 /m.test(stderr));
    await new Promise((r) => setTimeout(r, 1500));
  }
  const signalledAt = Date.now();
  child.kill(o.sig);
  const guard = new Promise<'held'>((r) => setTimeout(() => r('held'), STOP_BOUND_MS).unref());
  const r = await Promise.race([done, guard]);
  if (r === 'held') throw new Error(`bench did not exit within ${STOP_BOUND_MS} ms of ${o.sig}:\n${stderr}`);
  const [run] = readdirSync(out);
  const dir = join(out, run!);
  return { r, elapsedMs: Date.now() - signalledAt, dir };
}

/** What must hold after an interrupt: whole files, the run marked incomplete, no aborted request as a failure. */
function expectWrittenAsInterrupted(dir: string, stdout: string): LevelSummary {
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary;
  expect(summary.incomplete?.reason).toMatch(/interrupted/);
  const level = JSON.parse(readFileSync(join(dir, 'level-00.json'), 'utf8')) as LevelSummary;
  expect(level.validity.reasons.join('; ')).toMatch(/interrupted before the level finished/);
  const text = readFileSync(join(dir, 'requests.jsonl'), 'utf8');
  expect(text === '' || text.endsWith('\n')).toBe(true);
  const records = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RequestRecord);
  // the requests cut by the interrupt are counted as in flight at the end, never recorded as failures
  expect(records.every((x) => x.error === null)).toBe(true);
  expect(records.filter((x) => !x.warmup).length).toBe(level.requests.completed);
  expect(level.requests.failed).toBe(0);
  expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).schema).toBe('benchgate.manifest/1');
  expect(stdout).toContain('run incomplete');
  return level;
}

describe('bench: the first interrupt stops promptly, whatever the server does', () => {
  it('Ctrl-C against a server that froze mid-level: in-flight requests aborted, files written, exit 130', async () => {
    const { r, dir } = await interruptBench({ sig: 'SIGINT', freeze: true });
    expect(r.code).toBe(130);
    expect(expectWrittenAsInterrupted(dir, r.stdout).requests.inFlightAtEnd).toBe(4);
  }, 240_000);

  it('SIGTERM against a frozen server over two worker threads: the same, exit 143', async () => {
    const { r, dir } = await interruptBench({ sig: 'SIGTERM', freeze: true, extra: ['--workers', '2'] });
    expect(r.code).toBe(143);
    expect(expectWrittenAsInterrupted(dir, r.stdout).requests.inFlightAtEnd).toBe(4);
  }, 240_000);

  // the interrupt may come while the first measured send waits for the counters' "before" read (which
  // /metrics answers only after 8 s) or while the streams run: either wait ends with it
  it('Ctrl-C against a busy server (every step 4 times slower, /metrics answering after 8 s): exit 130', async () => {
    const { r, dir } = await interruptBench({
      sig: 'SIGINT',
      freeze: false,
      faults: ['slow=4', 'slow-metrics=8000'],
    });
    expect(r.code).toBe(130);
    expectWrittenAsInterrupted(dir, r.stdout);
  }, 240_000);
});
