// A forged matrix-state.json must never aim `run --resume` at a process (issue 33 item 2): a state
// naming a stranger (a process the test starts, on no port, leading its own process group) at the
// tear-down stage, with the stranger's real PID and start time. Edited by hand, the file fails its
// integrity check and nothing runs; even signed with this user's key (a bug, or a copy of another
// launch's proof), the stranger's environment lacks the launch token, so it is never signalled, with
// or without --kill-leftovers, and the log says why.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessHost, SpawnedProcess } from '../hosts/host.js';
import { openHost } from '../hosts/open-host.js';
import type { Plan } from '../plan/schema.js';
import { defaultStages } from './default-stages.js';
import { freeLoopbackPorts } from './free-port.js';
import { newLaunchToken } from './launch-proof.js';
import { runMatrix } from './run-matrix.js';
import { MATRIX_STATE_FILE, type MatrixState, readMatrixState, writeMatrixState } from './state.js';
import { isAlive, simConfig, testPlan, uniqueMarker } from './test-support/matrix-fixtures.js';

let out: string;
let host: ProcessHost;
let plan: Plan;
let matrixDir: string;
const strangers: SpawnedProcess[] = [];

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'bg-forged-state-'));
  host = await openHost('local');
  const [port] = await freeLoopbackPorts(1);
  plan = testPlan(out, [simConfig({ name: 'a', port: port!, marker: uniqueMarker() })], {
    load: { kind: 'concurrency', levels: [1], requests: 2 },
  });
  const first = await runMatrix({ plan, planPath: null, stages: defaultStages(), log: () => {} });
  expect(first.configs[0]?.status).toBe('completed');
  matrixDir = first.matrixDir;
}, 240_000);

afterAll(async () => {
  for (const s of strangers) await s.kill('SIGKILL').catch(() => undefined);
  await host.close();
  await rm(out, { recursive: true, force: true });
});

/** A process benchgate did not launch: no port, its own process group, a marker on its command line. */
async function stranger(): Promise<{ pid: number; startTime: string | null }> {
  const p = await host.spawn([process.execPath, '-e', 'setInterval(() => {}, 1000)', uniqueMarker()], {});
  strangers.push(p);
  return { pid: p.pid, startTime: (await host.processInfo(p.pid))?.startTime ?? null };
}

/** Config a as a kill during its tear-down leaves it, naming `who` as its launch. */
function aimAt(s: MatrixState, who: { pid: number; startTime: string | null }): void {
  const a = s.configs.a!;
  a.status = 'running';
  a.stage = 'teardown';
  a.stages = { ...a.stages, teardown: { status: 'running', at: new Date().toISOString() } };
  a.lastPid = who.pid;
  a.lastStartTime = who.startTime;
  a.lastLaunchProof = newLaunchToken().proof; // a real proof, of another launch's token
}

const resume = async (killLeftovers: boolean) => {
  const logs: string[] = [];
  await runMatrix({
    plan,
    planPath: null,
    resumeDir: matrixDir,
    killLeftovers,
    stages: defaultStages(),
    log: (l) => logs.push(l),
  });
  return logs.join('\n');
};

describe('a forged matrix-state.json naming a stranger at the tear-down stage', () => {
  it('edited by hand: --resume refuses the file and signals nothing', async () => {
    const who = await stranger();
    const file = join(matrixDir, MATRIX_STATE_FILE);
    const forged = JSON.parse(await readFile(file, 'utf8'));
    aimAt(forged, who);
    await writeFile(file, JSON.stringify(forged), { mode: 0o600 });
    await expect(resume(true)).rejects.toThrow(`${file} fails its integrity check`);
    expect(isAlive(who.pid)).toBe(true);
  }, 240_000);

  it.each([false, true])(
    'signed, with its real PID and start time (--kill-leftovers: %s): never signalled, and the log says why',
    async (killLeftovers) => {
      const who = await stranger();
      const s = JSON.parse(await readFile(join(matrixDir, MATRIX_STATE_FILE), 'utf8')) as MatrixState;
      aimAt(s, who);
      await writeMatrixState(matrixDir, s);
      const log = await resume(killLeftovers);
      expect(isAlive(who.pid)).toBe(true);
      expect(log).toContain(`process group ${who.pid} holds PID ${who.pid} (`);
      expect(log).toContain(
        `which benchgate cannot prove it launched (PID ${who.pid}: its environment carries no benchgate launch token); not ended.`,
      );
      expect((await readMatrixState(matrixDir))?.configs.a?.stage).toBeNull();
    },
    240_000,
  );
});
