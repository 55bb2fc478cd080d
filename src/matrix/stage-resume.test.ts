// --resume re-enters a config at the stage it stopped at, by name, against the simulator launched as a
// real child process. Each working stage is interrupted as it is entered (the matrix's own abort
// path); the clean-up stages are re-entered from the state file a kill during them leaves. Also: a
// state file of the earlier schema (/1) still resumes, and a kept level whose files are gone is re-run.
// With load.trials: 2, an interrupt or a kill in round 2 resumes at that config, trial and stage.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHost } from '../hosts/open-host.js';
import type { RunSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import { CONFIG_STAGES } from './config-stages.js';
import { defaultStages } from './default-stages.js';
import { freeLoopbackPorts } from './free-port.js';
import { LAUNCH_TOKEN_ENV, newLaunchToken } from './launch-proof.js';
import { runMatrix } from './run-matrix.js';
import { type MatrixState, readMatrixState, writeMatrixState } from './state.js';
import { pidsWithMarker, simConfig, testPlan, uniqueMarker } from './test-support/matrix-fixtures.js';

const trialsOf = async (configDir: string): Promise<(number | undefined)[]> => {
  const s = JSON.parse(await readFile(join(configDir, 'summary.json'), 'utf8')) as RunSummary;
  return s.levels.map((l) => l.trial);
};

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

/** Two configs with load.trials: 2, run in rounds (a b, a b). */
async function twoTrialPlan(marker: string): Promise<Plan> {
  const [pa, pb] = await freeLoopbackPorts(2);
  return testPlan(
    out,
    [simConfig({ name: 'a', port: pa!, marker }), simConfig({ name: 'b', port: pb!, marker })],
    {
      load: { kind: 'concurrency', levels: [1, 2], requests: 2, trials: 2 },
      lossless: { prompts: 2, max_tokens: 8, seed: 1 },
    },
  );
}

/**
 * Runs (or resumes) the matrix; `stopAt` interrupts as a config enters that stage (config a's visit
 * `visit`, when given). Returns the log and the order configs were launched in.
 */
async function run(plan: Plan, o: { resumeDir?: string; stopAt?: string; visit?: number } = {}) {
  const stop = new AbortController();
  const logs: string[] = [];
  const launches: string[] = [];
  const result = await runMatrix({
    plan,
    planPath: null,
    resumeDir: o.resumeDir,
    stages: defaultStages(),
    signal: stop.signal,
    log: (l) => logs.push(l),
    onStage: (config, stage) => {
      if (stage === 'launch') launches.push(config);
      const visit = launches.filter((c) => c === config).length;
      if (stage === o.stopAt && (o.visit === undefined || (config === 'a' && visit === o.visit)))
        stop.abort();
    },
  });
  return { result, log: logs.join('\n'), launches };
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
  await writeMatrixState(matrixDir, s);
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
      // cut off during tear-down, a process of the launch (its token in its environment) survives: the resumed tear-down ends it
      const launch = newLaunchToken();
      const survivor =
        stage === 'teardown'
          ? await host.spawn([process.execPath, '-e', 'setInterval(() => {}, 1000)', marker], {
              env: { [LAUNCH_TOKEN_ENV]: launch.token },
            })
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
          a.lastLaunchProof = launch.proof;
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

  it('interrupted in round 2 as config a entered its sweep, resumes there: round 1 is not re-run', async () => {
    const marker = uniqueMarker();
    const plan = await twoTrialPlan(marker);
    const first = await run(plan, { stopAt: 'sweep', visit: 2 });
    expect(first.launches).toEqual(['a', 'b', 'a']);
    const cut = (await readMatrixState(first.result.matrixDir))?.configs;
    expect(cut?.a).toMatchObject({ trial: 2, stage: 'sweep', status: 'pending', completedLevels: [0, 1] });
    expect(cut?.b).toMatchObject({ trial: 1, status: 'pending', completedLevels: [0, 1] });
    // b ran its first trial only: short of its trials, it is not compared as if complete
    expect(first.result.configs.map((c) => c.status)).toEqual(['cancelled', 'cancelled']);
    expect(await pidsWithMarker(marker)).toEqual([]);

    const again = await run(plan, { resumeDir: first.result.matrixDir });
    expect(again.launches).toEqual(['a', 'b']);
    expect(again.log).toContain('a: trial 1 already completed under the same launch spec; not relaunched.');
    expect(again.log).toContain('b: trial 1 already completed under the same launch spec; not relaunched.');
    expect(again.log).toContain('a: resuming at stage sweep, where the earlier run stopped (interrupted).');
    expect(again.log).toContain('a: stage lossless kept from an earlier trial of this config.');
    for (const c of again.result.configs) {
      expect(c.status).toBe('completed');
      expect(c.completedLevels).toEqual([0, 1, 2, 3]);
      expect(await trialsOf(c.dir)).toEqual([1, 1, 2, 2]);
    }
    expect(await pidsWithMarker(marker)).toEqual([]);
  }, 240_000);

  it('killed mid-level in round 2, resumes at that config, trial and level; completed trials are not re-run', async () => {
    const marker = uniqueMarker();
    const plan = await twoTrialPlan(marker);
    const first = await run(plan);
    const dir = first.result.matrixDir;
    const kept = await readFile(join(dir, 'a', 'levels', '02', 'requests.jsonl'), 'utf8');
    // as a kill leaves it: a in its trial 2 sweep with level 2 of trial 2 half written, b not yet in round 2
    await cutOff(dir, (s) => {
      const at = new Date().toISOString();
      Object.assign(s.configs.a!, {
        status: 'running',
        trial: 2,
        stage: 'sweep',
        completedLevels: [0, 1, 2],
      });
      s.configs.a!.stages = { ...s.configs.a!.stages, sweep: { status: 'running', at } };
      Object.assign(s.configs.b!, { status: 'pending', trial: 1, stage: null, completedLevels: [0, 1] });
    });
    for (const level of ['02', '03']) await rm(join(dir, 'b', 'levels', level), { recursive: true });
    const again = await run(plan, { resumeDir: dir });
    expect(again.launches).toEqual(['a', 'b']);
    expect(again.log).toContain('a: discarding interrupted level(s) 2 of trial 2; they will be re-run.');
    expect(again.log).toContain(
      'a: resuming at stage sweep, where the earlier run stopped (cut off while running).',
    );
    // a re-runs only the interrupted level; its completed levels are the same files
    expect(again.log.match(/level c=\d+ \(trial \d\)/g)).toEqual([
      'level c=2 (trial 2)',
      'level c=1 (trial 2)',
      'level c=2 (trial 2)',
    ]);
    expect(await readFile(join(dir, 'a', 'levels', '02', 'requests.jsonl'), 'utf8')).toBe(kept);
    for (const c of again.result.configs) {
      expect(c.status).toBe('completed');
      expect(await trialsOf(c.dir)).toEqual([1, 1, 2, 2]);
    }
    expect((await readMatrixState(dir))?.configs.b).toMatchObject({ trial: 2, stage: null });
    expect(await pidsWithMarker(marker)).toEqual([]);
  }, 240_000);
});
