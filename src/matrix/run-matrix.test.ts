import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHost } from '../hosts/open-host.js';
import type { RunSummary } from '../metrics/summary.js';
import { CAN_MOUNT_TMPFS, mountTinyFs, NEEDS_ROOT } from '../results/test-support/tiny-fs.js';
import { defaultStages } from './default-stages.js';
import { freeLoopbackPorts } from './free-port.js';
import { runMatrix } from './run-matrix.js';
import { readMatrixState } from './state.js';
import {
  pidsWithMarker,
  requestsPerLevel,
  simConfig,
  testPlan,
  uniqueMarker,
} from './test-support/matrix-fixtures.js';
import { writeToyServer } from './test-support/toy-server.js';

let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'bg-matrix-run-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

const quiet = { log: () => {}, progress: () => {}, print: () => {} };

async function levelIndexesOf(dir: string): Promise<number[]> {
  const s = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as RunSummary;
  return s.levels.map((l) => l.levelIndex);
}

describe('runMatrix against the simulator launched as real child processes', () => {
  it('records a config that crashes on its first decode while the others complete, and leaves no process behind', async () => {
    const marker = uniqueMarker();
    const [p1, p2, p3] = await freeLoopbackPorts(3);
    const plan = testPlan(out, [
      simConfig({ name: 'first', port: p1, marker }),
      simConfig({ name: 'crashy', port: p2, marker, extra: ['--fault', 'crash-on-first-decode'] }),
      simConfig({ name: 'second', port: p3, marker, extra: ['--max-running-requests', '2'] }),
    ]);
    const printed: string[] = [];
    const result = await runMatrix({
      plan,
      planPath: null,
      stages: defaultStages(),
      ...quiet,
      print: (t) => printed.push(t),
    });
    const by = Object.fromEntries(result.configs.map((c) => [c.name, c]));
    expect(by.first.status).toBe('completed');
    expect(by.second.status).toBe('completed');
    expect(by.crashy.status).toBe('failed');
    expect(['checkpoint', 'sweep', 'ready']).toContain(by.crashy.failure?.stage);
    expect(by.crashy.failure?.evidence.join('\n')).toMatch(/Traceback|smoke|exit/i);
    expect(await levelIndexesOf(by.first.dir)).toEqual([0, 1]);
    expect(await requestsPerLevel(by.second.dir)).toEqual({ 0: 4, 1: 4 });
    expect(result.comparison?.text).toContain('second');
    // the failed config is in the comparison with why, not silently left out
    const skipped = (
      result.comparison!.json as {
        validity: { skipped: { name: string; reason: string; evidence?: string[] }[] };
      }
    ).validity.skipped;
    expect(skipped.map((s) => s.name)).toEqual(['crashy']);
    expect(skipped[0].reason).toContain('crashy');
    // with its evidence, so the HTML report can show why (not only the terminal)
    expect(skipped[0].evidence).toEqual(by.crashy.failure?.evidence);
    expect(result.comparison?.text).toContain('crashy');
    expect(printed.some((t) => t.includes('Checkpoint') || t.includes('✔'))).toBe(true);
    const state = await readMatrixState(result.matrixDir);
    expect(state?.configs.crashy.status).toBe('failed');
    expect(await pidsWithMarker(marker)).toEqual([]);
  });

  it('re-runs a config whose launch spec changed on --resume, keeps the unchanged one, and never mixes them', async () => {
    const marker = uniqueMarker();
    const [p1, p2] = await freeLoopbackPorts(2);
    const configs = [
      simConfig({ name: 'same', port: p1, marker }),
      simConfig({ name: 'changing', port: p2, marker }),
    ];
    const first = await runMatrix({
      plan: testPlan(out, configs),
      planPath: null,
      stages: defaultStages(),
      ...quiet,
    });
    expect(first.configs.map((c) => c.status)).toEqual(['completed', 'completed']);
    const changed = [
      configs[0],
      simConfig({ name: 'changing', port: p2, marker, extra: ['--max-running-requests', '1'] }),
    ];
    const logs: string[] = [];
    const second = await runMatrix({
      plan: testPlan(out, changed),
      planPath: null,
      resumeDir: first.matrixDir,
      stages: defaultStages(),
      ...quiet,
      log: (l) => logs.push(l),
    });
    expect(second.matrixDir).toBe(first.matrixDir);
    expect(logs.join('\n')).toMatch(/same: all levels already completed .* not relaunched/);
    expect(logs.join('\n')).toMatch(/changing: re-running all levels because its launch spec changed/);
    const changingDir = join(first.matrixDir, 'changing');
    expect((await readdir(changingDir)).some((e) => e.startsWith('superseded-'))).toBe(true);
    expect(await requestsPerLevel(changingDir)).toEqual({ 0: 4, 1: 4 });
    const state = await readMatrixState(first.matrixDir);
    expect(state?.configs.changing.completedLevels).toEqual([0, 1]);
    expect(state?.configs.changing.supersededRuns.length).toBe(1);
    expect(await pidsWithMarker(marker)).toEqual([]);
  });
});

describe('bad input: the matrix says what went wrong and moves on', () => {
  it('reports a missing launch command, a server that never becomes healthy and an unreachable SSH host, then runs the good config', async () => {
    const marker = uniqueMarker();
    const dir = await mkdtemp(join(tmpdir(), 'bg-toy-'));
    const toy = await writeToyServer(dir);
    const [pGood, pMissing, pNever, pSsh] = await freeLoopbackPorts(4);
    const plan = testPlan(out, [
      {
        name: 'missing',
        url: `http://127.0.0.1:${pMissing}`,
        launch: { command: '/nonexistent/sglang-launch', args: [] },
      },
      {
        name: 'never-healthy',
        url: `http://127.0.0.1:${pNever}`,
        launch: {
          command: [process.execPath],
          args: [toy, String(pNever), marker],
          env: { TOY_MODE: 'never-ready' },
        },
        ready_timeout: '1s',
        stop: { grace: '1s' },
      },
      {
        name: 'remote',
        url: `http://127.0.0.1:${pSsh}`,
        launch: { command: 'python3 -m sglang.launch_server', host: 'ssh://nobody@127.0.0.1:1' },
      },
      simConfig({ name: 'good', port: pGood, marker }),
    ]);
    const result = await runMatrix({ plan, planPath: null, stages: defaultStages(), ...quiet });
    const by = Object.fromEntries(result.configs.map((c) => [c.name, c]));
    expect(by.missing.failure?.message).toMatch(/could not launch "\/nonexistent\/sglang-launch"/);
    expect(by['never-healthy'].failure?.message).toMatch(
      /expected \/health to answer 200 within 1 s; last answer: HTTP 503/,
    );
    expect(by.remote.status).toBe('failed');
    expect(by.remote.failure?.message).toMatch(/127\.0\.0\.1/);
    expect(by.good.status).toBe('completed');
    expect(await pidsWithMarker(marker)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the launch command with the values of secret flags redacted', async () => {
    const [p] = await freeLoopbackPorts(1);
    const plan = testPlan(out, [
      {
        name: 'keyed',
        url: `http://127.0.0.1:${p}`,
        launch: {
          command: '/nonexistent/serve',
          args: ['--api-key', 'launch-secret-4711', '--hf-token=hf-secret-0815', '--port', String(p)],
        },
      },
    ]);
    const logged: string[] = [];
    await runMatrix({ plan, planPath: null, stages: defaultStages(), ...quiet, log: (l) => logged.push(l) });
    const launching = logged.find((l) => l.includes('launching:')) ?? '';
    expect(launching).toContain('/nonexistent/serve --api-key <redacted> --hf-token=<redacted> --port');
    expect(logged.join('\n')).not.toMatch(/launch-secret-4711|hf-secret-0815/);
  });

  it.skipIf(!CAN_MOUNT_TMPFS)(
    `fails each config whose results disk lacks the space, naming it, without launching, and finishes the matrix (${NEEDS_ROOT})`,
    async () => {
      const fs = mountTinyFs(8 * 1024);
      try {
        const [p1, p2] = await freeLoopbackPorts(2);
        const launch = { command: '/nonexistent/serve', args: [] };
        const plan = testPlan(fs.dir, [
          { name: 'one', url: `http://127.0.0.1:${p1}`, launch },
          { name: 'two', url: `http://127.0.0.1:${p2}`, launch },
        ]);
        const logged: string[] = [];
        const result = await runMatrix({
          plan,
          planPath: null,
          stages: defaultStages(),
          ...quiet,
          log: (l) => logged.push(l),
        });
        expect(result.configs.map((c) => [c.name, c.status, c.failure?.code])).toEqual([
          ['one', 'failed', 'BG_E_DISK'],
          ['two', 'failed', 'BG_E_DISK'],
        ]);
        expect(result.configs[0].failure?.message).toMatch(
          /not enough free space for results in .*\/one: about [\d.]+ MiB needed/,
        );
        expect(logged.join('\n')).not.toContain('launching:');
      } finally {
        fs.unmount();
      }
    },
  );

  it('rejects configs that share a name before launching anything', async () => {
    const [p] = await freeLoopbackPorts(1);
    const marker = uniqueMarker();
    const plan = testPlan(out, [
      simConfig({ name: 'twin', port: p, marker }),
      simConfig({ name: 'twin', port: p, marker }),
    ]);
    await expect(
      runMatrix({ plan, planPath: 'plan.yaml', stages: defaultStages(), ...quiet }),
    ).rejects.toThrow('plan.yaml: expected unique config names; found "twin" more than once.');
  });

  it('reports a port held by another process with its PID and does not launch over it', async () => {
    const marker = uniqueMarker();
    const dir = await mkdtemp(join(tmpdir(), 'bg-toy-'));
    const toy = await writeToyServer(dir);
    const [p] = await freeLoopbackPorts(1);
    const host = await openHost('local');
    const squatter = await host.spawn([process.execPath, toy, String(p)], {});
    try {
      for (let i = 0; i < 50 && (await host.listeningPids(p)).length === 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      const plan = testPlan(out, [simConfig({ name: 'blocked', port: p, marker })]);
      const result = await runMatrix({ plan, planPath: null, stages: defaultStages(), ...quiet });
      const c = result.configs[0];
      expect(c.status).toBe('failed');
      expect(c.failure?.stage).toBe('leftovers');
      expect(c.failure?.message).toContain(`port ${p} on local is already held by PID ${squatter.pid}`);
      expect(await pidsWithMarker(marker)).toEqual([]);
    } finally {
      await squatter.kill('SIGKILL');
      await squatter.exited;
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('prepares a config once for all its levels: one session, one smoke request, one clock anchor', async () => {
    const marker = uniqueMarker();
    const [p] = await freeLoopbackPorts(1);
    const plan = testPlan(out, [simConfig({ name: 'once', port: p, marker })], {
      load: { kind: 'concurrency', levels: [1, 2, 3], requests: 4 },
    });
    const real = defaultStages();
    let sessions = 0;
    let smokeShaped = -1;
    const stages: typeof real = {
      ...real,
      openSession: (a) => {
        sessions++;
        return real.openSession(a);
      },
      // read the live server's own request log after each level (the server is gone afterwards)
      driftCheck: async (a) => {
        const truth = (await (await fetch(`http://127.0.0.1:${p}/_sim/requests`)).json()) as {
          requests: { completionTokens: number }[];
        };
        smokeShaped = truth.requests.filter((r) => r.completionTokens === 2).length;
        return real.driftCheck(a);
      },
    };
    const result = await runMatrix({ plan, planPath: null, stages, ...quiet });
    const c = result.configs[0];
    expect(c.status).toBe('completed');
    expect(c.completedLevels).toEqual([0, 1, 2]);
    expect(sessions).toBe(1);
    expect(smokeShaped).toBe(1); // the session's smoke asks for 2 tokens; the load asks for 8
    const anchors = await Promise.all(
      ['00', '01', '02'].map(async (l) => {
        const m = JSON.parse(await readFile(join(c.dir, 'levels', l, 'manifest.json'), 'utf8'));
        return JSON.stringify(m.anchor);
      }),
    );
    expect(new Set(anchors).size).toBe(1);
    const assembled = JSON.parse(await readFile(join(c.dir, 'manifest.json'), 'utf8'));
    expect(JSON.stringify(assembled.anchor)).toBe(anchors[0]);
    expect(await requestsPerLevel(c.dir)).toEqual({ 0: 4, 1: 4, 2: 4 });
    expect(await pidsWithMarker(marker)).toEqual([]);
  });
});
