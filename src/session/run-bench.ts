// runBench: the library entry point for one benchmark run. Resolves the target (or starts the embedded
// simulator), opens one session of it (checkpoint gate, smoke, tokenizer, one clock anchor), then sweeps
// every level into one run store, writing the summary and manifest at the end (also on Ctrl-C or error).

import { destroyAgents } from '../client/stream-request.js';
import { type ProgressView, silentProgress } from '../load/progress.js';
import { shardFromEnv } from '../load/shard.js';
import type { LevelSummary, RunSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import { checkFreeSpace, estimateRunBytes } from '../results/free-space.js';
import { finishRunStore } from '../results/run-store.js';
import type { SimulatorHandle, SimulatorOptions } from '../sim/api.js';
import { startSimulator } from '../sim/index.js';
import { authHeaders, type BeforeLoadResult, type LevelValidity, openSession } from './session.js';
import { sampleShardClock, shardInfo, shardRunName, waitForStart } from './shard-run.js';
import { startSimulatorProcess } from './simulator-process.js';
import { runSloSearch } from './slo-search-run.js';

export type { BeforeLoadResult } from './session.js';

export interface RunBenchOptions {
  plan: Plan;
  planPath?: string | null;
  /** Interrupt (Ctrl-C): stop, keep what is complete, mark the run incomplete. */
  signal?: AbortSignal;
  progress?: ProgressView;
  /** Run past failed required checkpoint findings (recorded in the manifest). */
  force?: boolean;
  /** Checkpoint gate, called before any load is sent, with the URL actually targeted (the simulator's when started here). */
  beforeLoad?: (ctx: { url: string }) => Promise<BeforeLoadResult>;
  /** Drift check after each level; an invalid result marks the level invalid. */
  afterLevel?: (levelIndex: number) => Promise<LevelValidity>;
  /** Options for the embedded simulator started when the plan has no target URL. */
  simulator?: SimulatorOptions;
  /** Run that simulator inside this process instead of a child process (its work then shows in the self-check). */
  simulatorInProcess?: boolean;
  /** Environment used for target.api_key_env (default process.env). */
  env?: Record<string, string | undefined>;
}

export interface RunBenchResult {
  runId: string;
  runDir: string;
  summary: RunSummary;
  interrupted: boolean;
  /** True when the embedded simulator was the target. */
  simulated: boolean;
  /** At least one measured request was sent and none succeeded (`bench` exits 1). */
  allFailed: boolean;
  /** The run ended before its last level (dead server, failed re-check after a drift): `bench` exits 1. */
  endedEarly: { code: string; message: string } | null;
}

/** At least one measured request and not one success. */
export function everyRequestFailed(levels: LevelSummary[]): boolean {
  const failed = levels.reduce((n, l) => n + l.requests.failed, 0);
  const ok = levels.reduce((n, l) => n + l.requests.completed, 0);
  return failed > 0 && ok === 0;
}

/**
 * The order levels run in: plan levels 0…L−1 once (no trial tag), or, with N > 1 trials, the sweep N
 * times, level i of trial t stored at index (t−1)·L + i.
 */
export function trialOrder(
  levels: number,
  trials: number,
): ({ index: number; planLevel: number } | undefined)[] {
  if (trials <= 1) return Array.from({ length: levels }, () => undefined);
  return Array.from({ length: levels * trials }, (_, k) => ({
    index: Math.floor(k / levels) + 1,
    planLevel: k % levels,
  }));
}

/** Starts the embedded simulator (no simulated model-load wait unless asked) and waits until it serves. */
async function startEmbeddedSimulator(opts: SimulatorOptions): Promise<SimulatorHandle> {
  const handle = await startSimulator({ host: '127.0.0.1', port: 0, loadTimeS: 0, ...opts });
  await handle.ready;
  return handle;
}

/**
 * Runs one benchmark: every level of `plan.load.levels` against `plan.target.url` (or the embedded
 * simulator when the plan has no URL), written to `<plan.output>/<run-id>/`.
 *
 * @example
 * ```ts
 * import { planSchema, runBench } from 'benchgate';
 * const plan = planSchema.parse({
 *   target: { url: 'http://127.0.0.1:30000', engine: 'auto' },
 *   load: { kind: 'concurrency', levels: [1, 8], requests: 200 },
 *   output: './runs',
 * });
 * const { runDir, summary } = await runBench({ plan });
 * console.log(runDir, summary.levels.map((l) => l.throughput.outputTokensPerS));
 * ```
 */
export async function runBench(opts: RunBenchOptions): Promise<RunBenchResult> {
  const { plan } = opts;
  const progress = opts.progress ?? silentProgress;
  const env = opts.env ?? process.env;
  const { headers, secrets } = authHeaders(plan, env);
  // One shard of many when JOB_COMPLETION_INDEX is set (docs/kubernetes.md); checked before any load.
  const shard = shardFromEnv(env);
  checkFreeSpace(plan.output, estimateRunBytes(plan));
  let sim: SimulatorHandle | null = null;
  let url = plan.target.url ?? null;
  if (url === null) {
    sim = opts.simulatorInProcess
      ? await startEmbeddedSimulator(opts.simulator ?? {})
      : await startSimulatorProcess(opts.simulator ?? {});
    url = sim.url;
    progress.note(
      `benchgate: no target URL given; benchmarking the embedded simulator at ${url} (stopped at the end).`,
    );
  }
  try {
    const session = await openSession({
      plan,
      url,
      headers,
      secrets,
      planPath: opts.planPath,
      progress,
      force: opts.force,
      beforeLoad: opts.beforeLoad,
      shard,
      failureOutDir: plan.output,
    });
    const baseName = plan.name ?? 'bench';
    const name = shard ? shardRunName(baseName, shard) : baseName;
    const store = session.openStore({ outDir: plan.output, name });
    const clockRef = env.BENCHGATE_CLOCK_REF || url;
    const clockStart = shard
      ? await sampleShardClock({ referenceUrl: clockRef, headers, anchor: session.anchor })
      : null;
    if (shard) {
      store.updateManifest({ shard: shardInfo(shard, session.anchor, clockRef, clockStart, null) });
      const lateMs = await waitForStart(shard, opts.signal);
      if (lateMs > 0)
        progress.note(
          `benchgate: shard ${shard.index} started ${(lateMs / 1000).toFixed(1)} s after the common start.`,
        );
    }
    const levels: LevelSummary[] = [];
    let interrupted = false;
    let failure: string | null = null;
    let endedEarly: { code: string; message: string } | null = null;
    let summary: RunSummary;
    try {
      // a failed write (full disk) stops the level at once: what is complete stays readable
      const signal = opts.signal ? AbortSignal.any([opts.signal, store.writeFailed]) : store.writeFailed;
      if (plan.load.kind === 'slo_search') {
        const s = await runSloSearch(session, store, {
          signal,
          afterLevel: opts.afterLevel,
          note: (t) => progress.note(t),
        });
        levels.push(...s.levels);
        interrupted = s.interrupted;
        if (store.writeError) throw store.writeError;
      }
      // repeated trials run the whole sweep again (1 2 3, 1 2 3), each trial a level of its own
      const sweep =
        plan.load.kind === 'slo_search' ? [] : trialOrder(plan.load.levels.length, plan.load.trials);
      for (let li = 0; li < sweep.length && !opts.signal?.aborted; li++) {
        const r = await session.runLevel(li, {
          store,
          signal,
          afterLevel: opts.afterLevel,
          trial: sweep[li],
        });
        if (store.writeError) throw store.writeError;
        levels.push(r.summary);
        interrupted = r.interrupted;
        if (interrupted) break;
        if (r.stop?.endsRun) {
          endedEarly = { code: r.stop.code, message: r.stop.message };
          break;
        }
      }
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
      throw e;
    } finally {
      interrupted = interrupted || opts.signal?.aborted === true;
      summary = { schema: 'benchgate.summary/1', runId: store.runId, name, levels };
      if (failure !== null) summary.incomplete = { reason: `stopped by an error: ${failure}` };
      else if (endedEarly !== null)
        summary.incomplete = { reason: `${endedEarly.message} [${endedEarly.code}]` };
      else if (interrupted)
        summary.incomplete = { reason: 'interrupted; the levels and records complete so far are kept' };
      if (shard && !store.writeError) {
        const clockEnd = await sampleShardClock({ referenceUrl: clockRef, headers, anchor: session.anchor });
        store.updateManifest({ shard: shardInfo(shard, session.anchor, clockRef, clockStart, clockEnd) });
      }
      finishRunStore(store, summary, plan.percentiles);
    }
    if (store.writeError) throw store.writeError;
    return {
      runId: store.runId,
      runDir: store.dir,
      summary,
      interrupted,
      simulated: sim !== null,
      allFailed: everyRequestFailed(levels),
      endedEarly,
    };
  } finally {
    destroyAgents();
    if (sim) await sim.close();
  }
}
