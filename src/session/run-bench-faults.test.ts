import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointGate } from '../checkpoint/gate.js';
import { FAST_SIM } from '../checkpoint/test-support.js';
import { seededRng } from '../core/seeded-random.js';
import { LocalHost } from '../hosts/local-host.js';
import { type ProgressView, silentProgress } from '../load/progress.js';
import type { RunSummary } from '../metrics/summary.js';
import { resolvePlan } from '../plan/load.js';
import { type PlanInput, planSchema } from '../plan/schema.js';
import { startSimulator } from '../sim/index.js';
import { runBench } from './run-bench.js';

// runBench against the simulator's faults: restarts, intermittent errors and a server dying mid-run.

const plan = (over: Partial<PlanInput> = {}) =>
  planSchema.parse({
    name: 'faults',
    target: { engine: 'auto', api: 'completions' },
    workload: { dataset: 'random', input_tokens: { fixed: 12 }, output_tokens: { fixed: 4 }, seed: 3 },
    load: { kind: 'concurrency', levels: [1, 1, 1], requests: 3 },
    output: mkdtempSync(join(tmpdir(), 'bg-faults-')),
    ...over,
  });

const notes = (): ProgressView & { lines: string[] } => {
  const lines: string[] = [];
  return { ...silentProgress, note: (l: string) => lines.push(l), lines };
};

describe('runBench under server faults', () => {
  it('waits for a server that restarted mid-run (restart-after, slow-start) and goes on with the next level', async () => {
    const progress = notes();
    // generation 1 is the smoke, 2-4 level 0, 5 restarts the server (3 s reload, so a busy machine still
    // asks before level 2 while it reloads), the rest of level 1 fails
    const res = await runBench({
      plan: plan(),
      progress,
      simulator: { flavor: 'sglang', profile: 'fixed', faults: ['restart-after=5', 'slow-start=3'] },
      simulatorInProcess: true,
    });
    expect(res.summary.levels).toHaveLength(3);
    expect(res.summary.incomplete).toBeUndefined();
    expect(progress.lines.some((l) => /is not answering before level/.test(l))).toBe(true);
    expect(progress.lines.some((l) => /answers again after/.test(l))).toBe(true);
    expect(res.summary.levels[2].requests.completed).toBe(3);
  });

  it('sends the first request again after an intermittent error instead of ending the bench (http-errors)', async () => {
    // the simulator's fault draws are seeded: pick a seed whose first generation fails and second passes
    const rate = 0.3;
    let seed = 1;
    for (; seed < 10_000; seed++) {
      const rng = seededRng(seed ^ 0x5eed);
      const [failDraw, , passDraw] = [rng(), rng(), rng()];
      if (failDraw < rate && passDraw >= rate) break;
    }
    const progress = notes();
    const res = await runBench({
      plan: plan({ load: { kind: 'concurrency', levels: [1], requests: 2 } }),
      progress,
      simulator: { flavor: 'sglang', profile: 'fixed', seed, faults: [`http-errors=${rate}`] },
      simulatorInProcess: true,
    });
    expect(progress.lines.some((l) => /the first request failed \(HTTP 50[03].*trying again/.test(l))).toBe(
      true,
    );
    expect(existsSync(join(res.runDir, 'summary.json'))).toBe(true);
  });

  it('stops the run when the server dies mid-level: the level stops on its error rate, the run dir is kept, allFailed is set', async () => {
    const sim = await startSimulator({
      host: '127.0.0.1',
      port: 0,
      flavor: 'sglang',
      profile: 'fixed',
      loadTimeS: 0,
    });
    await sim.ready;
    const progress = notes();
    const res = await runBench({
      plan: plan({
        target: { url: sim.url, engine: 'auto', api: 'completions' },
        load: {
          kind: 'concurrency',
          levels: [2, 4],
          requests: 60,
          backoff: { initial_ms: 1, max_ms: 5 },
        },
      }),
      progress: {
        ...progress,
        levelStarted: () => {
          void sim.close(); // the server dies as the first level starts
        },
      },
    });
    expect(res.allFailed).toBe(true);
    expect(res.summary.levels).toHaveLength(1); // the second level is not run
    const level = res.summary.levels[0];
    expect(level.validity.valid).toBe(false);
    expect(level.requests.failed).toBeLessThan(60);
    const reason = res.summary.incomplete?.reason ?? '';
    expect(reason).toMatch(/level concurrency 2 stopped: \d+ of \d+ requests failed \(100%/);
    expect(reason).toMatch(/most common: BG_E_CONNECT/);
    expect(reason).toMatch(/server is taken as dead.*\[BG_E_LEVEL_ERROR_RATE\]/);
    const written = JSON.parse(readFileSync(join(res.runDir, 'summary.json'), 'utf8')) as RunSummary;
    expect(written.levels).toHaveLength(1);
  });

  it('ends the run when a level stopped on its error rate and the re-check after it fails: no later level goes to the wrong configuration', async () => {
    const first = await startSimulator({ ...FAST_SIM, flavor: 'sglang', engineArgs: ['--tp-size', '8'] });
    await first.ready;
    const port = Number(new URL(first.url).port);
    let second: Awaited<ReturnType<typeof startSimulator>> | null = null;
    const dir = mkdtempSync(join(tmpdir(), 'bg-faults-'));
    const stopped = resolvePlan(
      {
        target: { url: first.url, engine: 'sglang', api: 'completions' },
        workload: { dataset: 'random', input_tokens: { fixed: 12 }, output_tokens: { fixed: 4 } },
        load: {
          kind: 'concurrency',
          levels: [2, 3],
          requests: 60,
          backoff: { initial_ms: 1, max_ms: 5 },
          error_stop: { rate: 0.5, min_requests: 10 },
        },
        expect: { wait: '5s', config: { tp_size: 8 }, smoke: false },
        output: dir,
      },
      'test plan',
    );
    const host = new LocalHost();
    const gate = checkpointGate({ plan: stopped, host });
    const progress = notes();
    let measured = 0;
    try {
      const res = await runBench({
        plan: stopped,
        progress: {
          ...progress,
          record: (r) => {
            // a few requests succeed, then the server goes away: the level stops on its error rate
            if (!r.warmup && r.error === null && ++measured === 4) void first.close();
          },
        },
        beforeLoad: gate.beforeLoad,
        // the server comes back on the same port with tp 4: the re-check after the level fails
        afterLevel: async () => {
          second ??= await startSimulator({
            ...FAST_SIM,
            flavor: 'sglang',
            port,
            engineArgs: ['--tp-size', '4'],
          });
          await second.ready;
          return gate.afterLevel();
        },
      });
      const level = res.summary.levels[0];
      expect(level.requests.completed).toBeGreaterThan(0);
      expect(level.validity.reasons.join(' ')).toMatch(/stopped: \d+ of \d+ requests failed/);
      expect(res.summary.levels).toHaveLength(1); // the second level is never sent to the tp-4 server
      expect(res.endedEarly?.code).toBe('BG_E_CHECK_FAILED');
      expect(res.endedEarly?.message).toMatch(/checkpoint failed again: .*config\.tp_size/);
      expect(res.summary.incomplete?.reason).toMatch(/later levels are not run \[BG_E_CHECK_FAILED\]/);
    } finally {
      await first.close();
      await (second as Awaited<ReturnType<typeof startSimulator>> | null)?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
