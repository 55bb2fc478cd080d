import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessHost } from '../hosts/host.js';
import { openHost } from '../hosts/open-host.js';
import type { ResolvedConfig } from './config-plan.js';
import { freeLoopbackPorts } from './free-port.js';
import { type LaunchedServer, launchServer } from './launch.js';
import { checkLeftovers, checkPreviousGroup } from './leftovers.js';
import { processGroupMembers } from './process-table.js';
import { tearDown } from './teardown.js';
import { isAlive } from './test-support/matrix-fixtures.js';
import { writeToyServer } from './test-support/toy-server.js';
import { type ReadyOutcome, type WaitReadyOptions, waitForReady } from './wait-ready.js';

let dir: string;
let script: string;
let host: ProcessHost;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-matrix-proc-'));
  script = await writeToyServer(dir);
  host = await openHost('local');
});
afterAll(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

async function toyConfig(mode: string, extraEnv: Record<string, string> = {}): Promise<ResolvedConfig> {
  const [port] = await freeLoopbackPorts(1);
  return {
    name: `toy-${mode || 'plain'}`,
    argv: [process.execPath, script, String(port)],
    env: { TOY_MODE: mode, ...extraEnv },
    cwd: undefined,
    hostSpec: 'local',
    url: `http://127.0.0.1:${port}`,
    port,
    stop: { signal: 'SIGTERM', command: undefined, graceS: 1 },
    readyTimeoutS: 10,
    // biome-ignore lint/suspicious/noExplicitAny: the plan is not used by these process-level tests
    plan: {} as any,
    launchFingerprint: 'x',
  };
}

/** Waits for a launched toy server as the matrix does: 10 s unless told otherwise. */
function untilReady(
  c: ResolvedConfig,
  s: LaunchedServer,
  opts: Partial<Pick<WaitReadyOptions, 'timeoutS' | 'pollMs' | 'onProgress'>> = {},
): Promise<ReadyOutcome> {
  return waitForReady({ url: c.url, timeoutS: 10, exited: s.proc.exited, log: s.log, ...opts });
}

describe('launch, wait for ready and tear down a real process', () => {
  it('becomes ready, captures output into the config directory, and leaves no process behind', async () => {
    const c = await toyConfig('child');
    const s = await launchServer(host, c, dir);
    const progress: string[] = [];
    const ready = await untilReady(c, s, { onProgress: (l) => progress.push(l) });
    expect(ready.kind).toBe('ready');
    expect((await processGroupMembers(host, s.proc.pid)).length).toBeGreaterThanOrEqual(2);
    const td = await tearDown(host, s.proc, { port: c.port, signal: 'SIGTERM', graceS: 1 });
    expect(td.clean).toBe(true);
    expect(await processGroupMembers(host, s.proc.pid)).toEqual([]);
    expect(isAlive(s.proc.pid)).toBe(false);
    expect(await host.listeningPids(c.port)).toEqual([]);
    expect(await readFile(s.outputFile, 'utf8')).toContain('toy: listening');
  });

  it('escalates to SIGKILL when the server ignores SIGTERM', async () => {
    const c = await toyConfig('ignore-term');
    const s = await launchServer(host, c, dir);
    expect((await untilReady(c, s)).kind).toBe('ready');
    const td = await tearDown(host, s.proc, { port: c.port, signal: 'SIGTERM', graceS: 0.5 });
    expect(td.escalatedToKill).toBe(true);
    expect(td.clean).toBe(true);
    expect(td.exit?.signal).toBe('SIGKILL');
  });

  it('detects a crash signature in the log before the server is ready', async () => {
    const c = await toyConfig('crash-log', { TOY_READY_MS: '60000' });
    const s = await launchServer(host, c, dir);
    const r = await untilReady(c, s);
    expect(r.kind).toBe('crashed');
    if (r.kind === 'crashed') expect(r.excerpt).toContain('CUDA error');
    await tearDown(host, s.proc, { port: c.port, signal: 'SIGTERM', graceS: 1 });
  });

  it('detects a process that exits during start-up', async () => {
    const c = await toyConfig('exit', { TOY_READY_MS: '60000' });
    const s = await launchServer(host, c, dir);
    const r = await untilReady(c, s);
    expect(r).toMatchObject({ kind: 'exited', code: 3 });
  });

  it('reports flapping health and a server that never becomes healthy', async () => {
    const f = await toyConfig('flap');
    const sf = await launchServer(host, f, dir);
    const rf = await untilReady(f, sf, { pollMs: 20 });
    expect(rf.kind).toBe('flapping');
    await tearDown(host, sf.proc, { port: f.port, signal: 'SIGTERM', graceS: 1 });
    const n = await toyConfig('never-ready');
    const sn = await launchServer(host, n, dir);
    const rn = await untilReady(n, sn, { timeoutS: 1, pollMs: 50 });
    expect(rn).toMatchObject({ kind: 'timeout', lastStatus: 'HTTP 503' });
    await tearDown(host, sn.proc, { port: n.port, signal: 'SIGTERM', graceS: 1 });
  });

  it('refuses a launch command that does not exist with a clear message', async () => {
    const c = await toyConfig('');
    c.argv = ['/nonexistent/bin/sglang-server-xyz'];
    await expect(launchServer(host, c, dir)).rejects.toThrow(
      /could not launch "\/nonexistent\/bin\/sglang-server-xyz"/,
    );
  });
});

describe('leftovers holding the port', () => {
  it('reports the PID of a process already holding the port, and --kill-leftovers ends it', async () => {
    const c = await toyConfig('ignore-term');
    const s = await launchServer(host, c, dir);
    expect((await untilReady(c, s)).kind).toBe('ready');
    const launched = [{ pid: s.proc.pid, startTime: s.startTime, proof: s.proof }];
    const report = await checkLeftovers(host, c.port, { kill: false, launched });
    expect(report.free).toBe(false);
    expect(report.holders.map((h) => h.pid)).toEqual([s.proc.pid]);
    expect(report.message).toContain(`PID ${s.proc.pid} (launched by an earlier benchgate run)`);
    const killed = await checkLeftovers(host, c.port, { kill: true, graceMs: 300, launched });
    expect(killed.free).toBe(true);
    expect(killed.killed).toEqual([s.proc.pid]);
    await s.proc.exited;
    expect(isAlive(s.proc.pid)).toBe(false);
  });
});

describe('leftovers of a previous launch that do not hold the port', () => {
  it('reports the surviving members of the previous process group, and --kill-leftovers ends them', async () => {
    const c = await toyConfig('child');
    const s = await launchServer(host, c, dir);
    expect((await untilReady(c, s)).kind).toBe('ready');
    // the server itself dies; its SIGTERM-ignoring child stays behind in the group
    process.kill(s.proc.pid, 'SIGKILL');
    await s.proc.exited;
    const previous = { pid: s.proc.pid, startTime: s.startTime, proof: s.proof };
    const seen = await checkPreviousGroup(host, previous, { kill: false });
    expect(seen.pids.length).toBe(1);
    expect(seen.message).toContain('toy-child-marker');
    const ended = await checkPreviousGroup(host, previous, { kill: true });
    expect(ended.killed).toBe(true);
    expect(await processGroupMembers(host, s.proc.pid)).toEqual([]);
  });
});
