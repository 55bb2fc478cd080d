import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { RunSummary } from '../metrics/summary.js';
import type { PlanInput } from '../plan/schema.js';
import { freeLoopbackPorts } from './free-port.js';
import { type MatrixState, readMatrixState } from './state.js';
import {
  benchgateArgv,
  pidsWithMarker,
  REPO_ROOT,
  simConfig,
  uniqueMarker,
} from './test-support/matrix-fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-matrix-kill-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function runCli(args: string[]): {
  child: ReturnType<typeof spawn>;
  done: Promise<{ code: number | null; stderr: string }>;
} {
  const [exe, ...pre] = benchgateArgv();
  const child = spawn(exe, [...pre, ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  child.stdout?.resume();
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
  return { child, done };
}

async function sizeOf(path: string): Promise<number> {
  return stat(path).then(
    (s) => s.size,
    () => 0,
  );
}

async function countsByLevel(configDir: string): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (const line of (await readFile(join(configDir, 'requests.jsonl'), 'utf8')).split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { levelIndex: number };
    counts[r.levelIndex] = (counts[r.levelIndex] ?? 0) + 1;
  }
  return counts;
}

/**
 * Starts `benchgate run PLAN` and SIGKILLs it once `when` holds for the matrix directory it made
 * (named `prefix…` under `dir`); returns that directory.
 */
async function killWhen(
  planPath: string,
  prefix: string,
  when: (state: MatrixState | null, candidate: string) => boolean | Promise<boolean>,
): Promise<string> {
  const first = runCli(['run', planPath, '--yes', '--out', dir]);
  let matrixDir: string | null = null;
  for (let i = 0; i < 2400 && matrixDir === null; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const found = (await readdir(dir)).find((e) => e.startsWith(prefix));
    if (!found) continue;
    const candidate = join(dir, found);
    const state = await readMatrixState(candidate).catch(() => null);
    if (await when(state, candidate)) matrixDir = candidate;
  }
  expect(matrixDir).not.toBeNull();
  first.child.kill('SIGKILL');
  await first.done;
  return matrixDir as string;
}

/** The earlier launch of `config` was ended before the resumed matrix launched anything. */
function expectEndedBeforeLaunching(stderr: string, config: string): void {
  const ended = stderr.search(
    new RegExp(
      `${config}: before resuming, ended leftover process\\(es\\) of the previous launch with --kill-leftovers: PID \\d+`,
    ),
  );
  expect(ended, stderr).toBeGreaterThanOrEqual(0);
  expect(stderr.indexOf('launching:')).toBeGreaterThan(ended);
}

describe('benchgate run killed with SIGKILL mid-level, then --resume', () => {
  it('ends with the same levels as an uninterrupted run, re-running only the interrupted level', async () => {
    const marker = uniqueMarker();
    const [pa, pb] = await freeLoopbackPorts(2);
    const plan: PlanInput = {
      name: 'killed',
      target: { engine: 'sglang', api: 'native' },
      workload: { input_tokens: { fixed: 16 }, output_tokens: { fixed: 48 }, ignore_eos: true },
      load: { kind: 'concurrency', levels: [1, 2], requests: 24 },
      output: dir,
      expect: { config: { tp_size: 8 } },
      configs: [
        simConfig({ name: 'a', port: pa, marker, timeScale: 20 }),
        simConfig({ name: 'b', port: pb, marker, timeScale: 200 }),
      ],
    };
    const planPath = join(dir, 'plan.yaml');
    await writeFile(planPath, stringify(plan));

    // 1. Start the matrix and SIGKILL benchgate while config a's second level is being measured.
    const matrixDir = await killWhen(planPath, 'killed-', (state, candidate) =>
      state?.configs.a?.completedLevels.length === 1
        ? sizeOf(join(candidate, 'a', 'levels', '01', 'requests.jsonl')).then((n) => n > 0)
        : false,
    );
    const leftovers = await pidsWithMarker(marker);
    expect(leftovers.length).toBeGreaterThan(0); // the server of config a outlived benchgate

    // 2. Resumed without --kill-leftovers beside that server: refused before anything is launched.
    const refused = await runCli(['run', planPath, '--yes', '--resume', matrixDir]).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /the earlier run's server\(s\) are still running, launched by benchgate for a: PID \d+ .*resume with --kill-leftovers\. \[BG_E_LAUNCH\]/,
    );
    expect(refused.stderr).not.toContain('launching:');
    expect(await pidsWithMarker(marker)).toEqual(leftovers);

    // 3. Resume: the leftover is ended before any config runs, the interrupted level re-run, b run for
    // the first time.
    const second = runCli(['run', planPath, '--yes', '--resume', matrixDir, '--kill-leftovers']);
    const { code, stderr } = await second.done;
    expectEndedBeforeLaunching(stderr, 'a');
    expect(stderr).toMatch(/a: discarding interrupted level\(s\) 2/);
    expect(code).toBe(0);
    const state = await readMatrixState(matrixDir);
    expect(state?.configs.a.completedLevels).toEqual([0, 1]);
    expect(state?.configs.b.completedLevels).toEqual([0, 1]);
    for (const name of ['a', 'b']) {
      const summary = JSON.parse(await readFile(join(matrixDir, name, 'summary.json'), 'utf8')) as RunSummary;
      expect(summary.levels.map((l) => l.level.value)).toEqual([1, 2]);
      expect(await countsByLevel(join(matrixDir, name))).toEqual({ 0: 24, 1: 24 });
    }
    expect(await pidsWithMarker(marker)).toEqual([]);
  }, 120_000);

  it('with trials: 2, killed mid-level of round 2, resumes at that config, trial and level', async () => {
    const marker = uniqueMarker();
    const [pa, pb] = await freeLoopbackPorts(2);
    const plan: PlanInput = {
      name: 'rounds',
      target: { engine: 'sglang', api: 'native' },
      workload: { input_tokens: { fixed: 16 }, output_tokens: { fixed: 48 }, ignore_eos: true },
      load: { kind: 'concurrency', levels: [1, 2], requests: 12, trials: 2 },
      output: dir,
      expect: { config: { tp_size: 8 } },
      configs: [
        simConfig({ name: 'a', port: pa, marker, timeScale: 20 }),
        simConfig({ name: 'b', port: pb, marker, timeScale: 200 }),
      ],
    };
    const planPath = join(dir, 'rounds.yaml');
    await writeFile(planPath, stringify(plan));
    // round 2: a has its trial 1 and level 1 of trial 2; level 2 of trial 2 is being measured
    const matrixDir = await killWhen(planPath, 'rounds-', (state, candidate) =>
      state?.configs.a?.trial === 2 && state.configs.a.completedLevels.length === 3
        ? sizeOf(join(candidate, 'a', 'levels', '03', 'requests.jsonl')).then((n) => n > 0)
        : false,
    );
    expect((await readMatrixState(matrixDir))?.configs.b?.completedLevels).toEqual([0, 1]);
    expect((await pidsWithMarker(marker)).length).toBeGreaterThan(0);

    const second = runCli(['run', planPath, '--yes', '--resume', matrixDir, '--kill-leftovers']);
    const { code, stderr } = await second.done;
    expect(stderr).toContain('a: trial 1 already completed under the same launch spec; not relaunched.');
    expectEndedBeforeLaunching(stderr, 'a');
    expect(stderr).toMatch(/a: discarding interrupted level\(s\) 2 of trial 2/);
    expect(code).toBe(0);
    const state = await readMatrixState(matrixDir);
    for (const name of ['a', 'b']) {
      expect(state?.configs[name]).toMatchObject({
        status: 'completed',
        trial: 2,
        completedLevels: [0, 1, 2, 3],
      });
      const summary = JSON.parse(await readFile(join(matrixDir, name, 'summary.json'), 'utf8')) as RunSummary;
      expect(summary.levels.map((l) => [l.level.value, l.trial])).toEqual([
        [1, 1],
        [2, 1],
        [1, 2],
        [2, 2],
      ]);
      expect(await countsByLevel(join(matrixDir, name))).toEqual({ 0: 12, 1: 12, 2: 12, 3: 12 });
    }
    expect(await pidsWithMarker(marker)).toEqual([]);
  }, 180_000);
});
