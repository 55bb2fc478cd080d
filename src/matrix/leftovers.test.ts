import { afterEach, describe, expect, it } from 'vitest';
import type { SpawnedProcess } from '../hosts/host.js';
import { LocalHost } from '../hosts/local-host.js';
import { freeLoopbackPorts } from './free-port.js';
import { belongsToLaunch, checkLeftovers } from './leftovers.js';
import { isAlive } from './test-support/matrix-fixtures.js';

const host = new LocalHost();
const spawned: SpawnedProcess[] = [];

afterEach(async () => {
  for (const p of spawned.splice(0)) await p.kill('SIGKILL').catch(() => undefined);
});

/** A plain HTTP listener no benchgate run started: the kind of process --kill-leftovers once killed. */
async function plainListener(): Promise<{ pid: number; port: number }> {
  const [port] = await freeLoopbackPorts(1);
  const code = `require('http').createServer((q,s)=>s.end('hi')).listen(${port},'127.0.0.1')`;
  const p = await host.spawn([process.execPath, '-e', code, 'plain-listener-marker'], {});
  spawned.push(p);
  for (let i = 0; i < 100 && !(await host.listeningPids(port!)).includes(p.pid); i++)
    await new Promise((r) => setTimeout(r, 50));
  return { pid: p.pid, port: port! };
}

describe('--kill-leftovers ends only what benchgate launched or the user named', () => {
  it('never signals a stranger on the port: reports its PID and command line and how to name it', async () => {
    const { pid, port } = await plainListener();
    const r = await checkLeftovers(host, port, { kill: true, graceMs: 300, launched: [] });
    expect(r.free).toBe(false);
    expect(r.killed).toEqual([]);
    expect(isAlive(pid)).toBe(true);
    expect(r.message).toContain(`PID ${pid} (`);
    expect(r.message).toContain('plain-listener-marker');
    expect(r.message).toContain('which benchgate did not launch; not ended');
    expect(r.message).toContain(`--kill-leftovers ${pid}`);
  });

  it('does not trust a recorded PID whose start time differs (the PID was reused by another process)', async () => {
    const { pid, port } = await plainListener();
    const launched = [{ pid, startTime: '2020-01-01T00:00:00.000Z', proof: null }];
    const r = await checkLeftovers(host, port, { kill: true, graceMs: 300, launched });
    expect(r.killed).toEqual([]);
    expect(isAlive(pid)).toBe(true);
  });

  it('ends a process the user named by PID', async () => {
    const { pid, port } = await plainListener();
    const r = await checkLeftovers(host, port, { kill: true, graceMs: 2000, userPids: [pid] });
    expect(r.killed).toEqual([pid]);
    expect(r.free).toBe(true);
  });

  it('recognises a launch only by PID and start time together, or a later member of its group', () => {
    const launch = { pid: 100, startTime: '2026-12-03T09:00:00.000Z' };
    expect(belongsToLaunch({ pid: 100, pgid: 100, startTime: launch.startTime }, [launch])).toBe(true);
    expect(belongsToLaunch({ pid: 100, pgid: 100, startTime: '2026-12-03T09:30:00.000Z' }, [launch])).toBe(
      false,
    );
    expect(belongsToLaunch({ pid: 101, pgid: 100, startTime: '2026-12-03T09:00:01.000Z' }, [launch])).toBe(
      true,
    );
    expect(belongsToLaunch({ pid: 101, pgid: 100, startTime: '2026-12-03T08:00:00.000Z' }, [launch])).toBe(
      false,
    );
    expect(belongsToLaunch({ pid: 100, pgid: 100, startTime: null }, [launch])).toBe(false);
    expect(
      belongsToLaunch({ pid: 100, pgid: 100, startTime: launch.startTime }, [{ pid: 100, startTime: null }]),
    ).toBe(false);
  });
});
