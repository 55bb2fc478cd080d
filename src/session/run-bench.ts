// runBench: the library entry point for one benchmark run. Resolves the target (or starts the embedded
// simulator), opens one session of it (checkpoint gate, smoke, tokenizer, one clock anchor), then sweeps
// every level into one run store, writing the summary and manifest at the end (also on Ctrl-C or error).

import { destroyAgents } from '../client/stream-request.js';
import { type ProgressView, silentProgress } from '../load/progress.js';
import { type Shard, shardFromEnv } from '../load/shard.js';
import type { LevelSummary, RunSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import { checkFreeSpace, estimateRunBytes } from '../results/free-space.js';
import type { RunStore } from '../results/run-store.js';
import type { RunValidity } from '../results/run-validity.js';
import { storeRunValidity } from '../results/validity-file.js';
import type { SimulatorHandle, SimulatorOptions } from '../sim/api.js';
import { startSimulator } from '../sim/index.js';
import { finishBenchSweep, newBenchSweep, sweepLevels } from './bench-sweep.js';
import {
  authHeaders,
  type BeforeLoadResult,
  type LevelValidity,
  openSession,
  type Session,
} from './session.js';
import { sampleShardClock, shardInfo, shardRunName, waitForStart } from './shard-run.js';
import { startSimulatorProcess } from './simulator-process.js';

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
  /** The run's one validity judgement (stored as validity.json): the end table and the exit code read it. */
  validity: RunValidity;
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

/** Starts the embedded simulator (no simulated model-load wait unless asked) and waits until it serves. */
async function startEmbeddedSimulator(opts: SimulatorOptions): Promise<SimulatorHandle> {
  const handle = await startSimulator({ host: '127.0.0.1', port: 0, loadTimeS: 0, ...opts });
  await handle.ready;
  return handle;
}

/** The URL to benchmark: the plan's, or an embedded simulator started here (and stopped by the caller). */
async function resolveTarget(
  opts: RunBenchOptions,
  progress: ProgressView,
): Promise<{ url: string; sim: SimulatorHandle | null }> {
  const url = opts.plan.target.url ?? null;
  if (url !== null) return { url, sim: null };
  const sim = opts.simulatorInProcess
    ? await startEmbeddedSimulator(opts.simulator ?? {})
    : await startSimulatorProcess(opts.simulator ?? {});
  progress.note(
    `benchgate: no target URL given; benchmarking the embedded simulator at ${sim.url} (stopped at the end).`,
  );
  return { url: sim.url, sim };
}

interface ShardClock {
  /** Waits for the common start (a shard's first level calls it once its prompts are built). */
  startTogether(): Promise<void>;
  finish(): Promise<void>;
}

/**
 * A shard's clock, sampled before the first level and after the last, and its wait for the common start.
 * The wait comes once the first level is prepared, so every shard's first request goes out at the start;
 * how late it got there goes into its manifest, and merge flags a late shard (it did not load the server
 * with the others).
 */
async function shardClock(
  shard: Shard | null,
  o: { store: RunStore; session: Session; referenceUrl: string; headers: Record<string, string> },
  signal: AbortSignal | undefined,
  progress: ProgressView,
): Promise<ShardClock> {
  if (!shard) return { startTogether: async () => {}, finish: async () => {} };
  const clockOpts = { referenceUrl: o.referenceUrl, headers: o.headers, anchor: o.session.anchor };
  const start = await sampleShardClock(clockOpts);
  let lateStartMs = 0;
  const info = (end: Awaited<ReturnType<typeof sampleShardClock>>) => ({
    ...shardInfo(shard, o.session.anchor, o.referenceUrl, start, end),
    lateStartMs,
  });
  o.store.updateManifest({ shard: info(null) });
  return {
    startTogether: async () => {
      lateStartMs = await waitForStart(shard, signal);
      o.store.updateManifest({ shard: info(null) });
      if (lateStartMs > 0)
        progress.note(
          `benchgate: shard ${shard.index} started ${(lateStartMs / 1000).toFixed(1)} s after the common start.`,
        );
    },
    finish: async () => {
      if (!o.store.writeError) o.store.updateManifest({ shard: info(await sampleShardClock(clockOpts)) });
    },
  };
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
  const { url, sim } = await resolveTarget(opts, progress);
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
      signal: opts.signal,
    });
    const baseName = plan.name ?? 'bench';
    const name = shard ? shardRunName(baseName, shard) : baseName;
    const store = session.openStore({ outDir: plan.output, name });
    const referenceUrl = env.BENCHGATE_CLOCK_REF || url;
    const clock = await shardClock(shard, { store, session, referenceUrl, headers }, opts.signal, progress);
    const sweep = newBenchSweep();
    let summary: RunSummary;
    try {
      // a failed write (full disk) stops the level at once: what is complete stays readable
      const signal = opts.signal ? AbortSignal.any([opts.signal, store.writeFailed]) : store.writeFailed;
      await sweepLevels(session, store, sweep, {
        signal,
        afterLevel: opts.afterLevel,
        note: (t) => progress.note(t),
        beforeFirstSend: clock.startTogether,
      });
    } catch (e) {
      sweep.failure = e instanceof Error ? e.message : String(e);
      throw e;
    } finally {
      sweep.interrupted = sweep.interrupted || opts.signal?.aborted === true;
      await clock.finish();
      summary = finishBenchSweep(store, name, sweep, plan);
    }
    if (store.writeError) throw store.writeError;
    return {
      runId: store.runId,
      runDir: store.dir,
      summary,
      validity: await storeRunValidity(store.dir, summary),
      interrupted: sweep.interrupted,
      simulated: sim !== null,
      allFailed: everyRequestFailed(sweep.levels),
      endedEarly: sweep.endedEarly,
    };
  } finally {
    destroyAgents();
    if (sim) await sim.close();
  }
}
