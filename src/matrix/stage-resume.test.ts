// --resume re-enters a config at the stage it stopped at, by name, against the simulator launched as a
// real child process. Each working stage is interrupted as it is entered (the matrix's own abort
// path); the clean-up stages are re-entered from the state file a kill during them leaves. Also: a
// state file of the earlier schema (/1) still resumes, and a kept level whose files are gone is re-run.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHost } from '../hosts/open-host.js';
import type { RunSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import { CONFIG_STAGES } from './config-stages.js';
import { defaultStages } from './default-stages.js';
import { freeLoopbackPorts } from './free-port.js';
import { runMatrix } from './run-matrix.js';
import { MATRIX_STATE_FILE, type MatrixState, readMatrixState } from './state.js';
import { pidsWithMarker, simConfig, testPlan, uniqueMarker } from './test-support/matrix-fixtures.js';

let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'bg-stage-resume-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

async function onePlan(marker: string): Promise<Plan> {
  const [port] = await freeLoopbackPorts(1);
  return testPlan(out, [simConfig({ name: 'a', port: port!, marker })], {
    load: { kind: 'concurrency', levels: [1, 2], requests: 2 },
    lossless: { prompts: 2, max_tokens: 8, seed: 1 },
  });
}

/** Runs (or resumes) the matrix; `stopAt` interrupts config a as it enters that stage. */
async function run(plan: Plan, o: { resumeDir?: string; stopAt?: string } = {}) {
  const stop = new AbortController();
  const logs: string[] = [];
  const result = await runMatrix({
    plan,
    planPath: null,
    resumeDir: o.resumeDir,
    stages: defaultStages(),
    signal: stop.signal,
    log: (l) => logs.push(l),
    onStage: (_config, stage) => {
      if (stage === o.stopAt) stop.abort();
    },
  });
  return { result, log: logs.join('\n') };
}

async function levelsOf(configDir: string): Promise<number[]> {
  const s = JSON.parse(await readFile(join(configDir, 'summary.json'), 'utf8')) as RunSummary;
  return s.levels.map((l) => l.levelIndex);
}

/** Rewrites config a's state as a kill while `stage` ran leaves it (the schema /1 form drops the stage records). */
async function cutOff(matrixDir: string, edit: (s: MatrixState, raw: Record<string, unknown>) => void) {
  const s = (await readMatrixState(matrixDir)) as MatrixState;
  const raw = s as unknown as Record<string, unknown>;
  edit(s, raw);
  await writeFile(join(matrixDir, MATRIX_STATE_FILE), JSON.stringify(s));
}

const WORK_STAGES = CONFIG_STAGES.filter((s) => !s.always).map((s) => s.name);
const CLEANUP_STAGES = CONFIG_STAGES.filter((s) => s.always).map((s) => s.name);

describe('--resume re-enters a config at a stage by name', () => {
  it.each(WORK_STAGES)(
    'interrupted as it entered stage %s, resumes there and completes',
    async (stage) => {
      const marker = uniqueMarker();
      const plan = await onePlan(marker);
      const first = await run(plan, { stopAt: stage });
      expect(first.result.cancelled).toBe(true);
      const cut = (await readMatrixState(first.result.matrixDir))?.configs.a;
      expect(cut?.stage).toBe(stage);
      expect(cut?.stages?.[stage]?.status).toBe('interrupted');
      expect(cut?.status).toBe('pending');
      // the clean-up stages ran after the interrupt: nothing of the server is left
      expect(await pidsWithMarker(marker)).toEqual([]);

      const again = await run(plan, { resumeDir: first.result.matrixDir });
      expect(again.log).toContain(
        `a: resuming at stage ${stage}, where the earlier run stopped (interrupted).`,
      );
      if (stage === 'sweep') expect(again.log).toContain('a: stage lossless kept from the earlier run.');
      const a = again.result.configs[0]!;
      expect(a.status).toBe('completed');
      expect(a.completedLevels).toEqual([0, 1]);
      expect(await levelsOf(a.dir)).toEqual([0, 1]);
      const st = (await readMatrixState(first.result.matrixDir))?.configs.a;
      expect(st?.stage).toBeNull();
      for (const name of CONFIG_STAGES.map((s) => s.name)) expect(st?.stages?.[name]?.status).toBe('done');
      expect(await pidsWithMarker(marker)).toEqual([]);
    },
    240_000,
  );

  it('cut off during each clean-up stage, finishes the clean-up from there without relaunching', async () => {
    const marker = uniqueMarker();
    const plan = await onePlan(marker);
    const first = await run(plan);
    const dir = first.result.matrixDir;
    const host = await openHost('local');
    for (const stage of CLEANUP_STAGES) {
      // cut off during tear-down, a process of the launch survives: the resumed tear-down ends it
      const survivor =
        stage === 'teardown'
          ? await host.spawn([process.execPath, '-e', 'setInterval(() => {}, 1000)', marker], {})
          : null;
      const startTime = survivor ? ((await host.processInfo(survivor.pid))?.startTime ?? null) : null;
      await cutOff(dir, (s) => {
        const a = s.configs.a!;
        a.status = 'running';
        a.stage = stage;
        a.stages = { ...a.stages, [stage]: { status: 'running', at: new Date().toISOString() } };
        if (survivor) {
          a.lastPid = survivor.pid;
          a.lastStartTime = startTime;
        }
      });
      await rm(join(dir, 'a', 'summary.json'));
      const again = await run(plan, { resumeDir: dir });
      expect(again.log).toContain(
        `a: resuming at stage ${stage}, where the earlier run stopped (cut off while running).`,
      );
      expect(again.log).not.toContain('launching:');
      if (survivor) {
        expect(again.log).toMatch(
          /ended leftover process\(es\) of the previous launch to finish its tear-down/,
        );
        await survivor.exited;
      }
      expect(again.result.configs[0]?.status).toBe('completed');
      // the assembly after it ran again: the config's run directory is whole
      expect(await levelsOf(join(dir, 'a'))).toEqual([0, 1]);
      expect((await readMatrixState(dir))?.configs.a?.stage).toBeNull();
    }
    expect(await pidsWithMarker(marker)).toEqual([]);
  }, 240_000);

  it('resumes a state file of the earlier schema (/1, no stage records) where its levels end', async () => {
    const marker = uniqueMarker();
    const plan = await onePlan(marker);
    const first = await run(plan);
    const dir = first.result.matrixDir;
    await cutOff(dir, (s, raw) => {
      raw.schema = 'benchgate.matrix-state/1';
      const a = s.configs.a as unknown as Record<string, unknown>;
      delete a.stage;
      delete a.stages;
      a.status = 'running';
      a.completedLevels = [0];
    });
    const again = await run(plan, { resumeDir: dir });
    expect(again.log).toContain('a: discarding interrupted level(s) 2; they will be re-run.');
    expect(again.log).toContain(
      'a: resuming at stage sweep, as far as a state file of an earlier version tells.',
    );
    expect(again.result.configs[0]?.completedLevels).toEqual([0, 1]);
    expect((await readMatrixState(dir))?.schema).toBe('benchgate.matrix-state/2');
  }, 240_000);

  it('re-runs a level recorded as completed whose files are gone, and says so', async () => {
    const marker = uniqueMarker();
    const plan = await onePlan(marker);
    const first = await run(plan);
    const dir = first.result.matrixDir;
    await rm(join(dir, 'a', 'levels', '00'), { recursive: true });
    const again = await run(plan, { resumeDir: dir });
    expect(again.log).toContain(
      'a: level 1 is recorded as completed but levels/00/ is missing; it will be re-run.',
    );
    expect(again.log).toContain('launching:');
    const a = again.result.configs[0]!;
    expect(a.completedLevels).toEqual([0, 1]);
    expect(await levelsOf(a.dir)).toEqual([0, 1]);
  }, 240_000);
});
