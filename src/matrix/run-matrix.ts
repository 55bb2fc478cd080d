// The matrix: for each server configuration, launch → wait for ready → checkpoint → one session of the
// server (its levels swept one by one, each drift-checked) → tear down, recording every step in a resumable state file.
// A failing config is recorded with its evidence and the loop moves on; completed configs are compared.

import { setMaxListeners } from 'node:events';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gateFailed } from '../checkpoint/finding.js';
import type { CheckpointOutcome } from '../checkpoint/gate.js';
import { monoNowMs } from '../core/clock.js';
import { BenchgateError, type ErrorCode, isBenchgateError } from '../core/errors.js';
import type { ProcessHost } from '../hosts/host.js';
import { openHost } from '../hosts/open-host.js';
import { redactArgv } from '../hosts/redact-env.js';
import { levelKeyOf, levelLabel } from '../load/level-label.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import { checkFreeSpace, estimateRunBytes } from '../results/free-space.js';
import type { Session } from '../session/session.js';
import { assembleConfigRun, LEVELS_DIR, levelRunDir } from './assemble-run.js';
import { duplicateConfigNames, type ResolvedConfig, resolveConfig } from './config-plan.js';
import { estimateMatrix, renderPlanPreview } from './estimate.js';
import { checkGpuRelease } from './gpu-release.js';
import { type LaunchedServer, launchServer, SERVER_OUTPUT_FILE } from './launch.js';
import { checkLeftovers, checkPreviousGroup } from './leftovers.js';
import {
  collectConfigAnswers,
  judgeMatrixLossless,
  losslessBaseline,
  losslessEnabled,
} from './lossless-stage.js';
import { processGroupMembers } from './process-table.js';
import { discardSearch, isSloSearch, runConfigSearch, searchCompleted } from './slo-search-stage.js';
import type { MatrixStages } from './stages.js';
import {
  type ConfigFailure,
  type ConfigState,
  decideAfterCheckpoint,
  decideBeforeLaunch,
  type MatrixState,
  newMatrixState,
  readMatrixState,
  verifiedConfigHash,
  writeMatrixState,
} from './state.js';
import { sweepOneLevel } from './sweep-level.js';
import { tearDown } from './teardown.js';
import { waitForReady } from './wait-ready.js';

export interface RunMatrixOptions {
  plan: Plan;
  planPath: string | null;
  /** Continue this matrix directory (it holds matrix-state.json). */
  resumeDir?: string;
  /** Parent directory for a new matrix; default: plan.output. */
  outDir?: string;
  /** Run only these config names. */
  only?: string[];
  killLeftovers?: boolean;
  /** With killLeftovers: processes the user named (--kill-leftovers=PID,PID) that may be ended too. */
  killLeftoverPids?: readonly number[];
  /** Asked with the plan preview before anything starts; return false to cancel. Omit to proceed. */
  confirm?: (preview: string[]) => Promise<boolean>;
  /** Progress and logs (stderr). */
  log?: (line: string) => void;
  /** Live progress line (rewritten in place on a TTY). */
  progress?: (line: string) => void;
  /** Checklists and the comparison (stdout); omitted with --json. */
  print?: (text: string) => void;
  json?: boolean;
  stages: MatrixStages;
  signal?: AbortSignal;
  /** Opens the host of a config; default openHost. */
  openHostFn?: (spec: string) => Promise<ProcessHost>;
}

export interface ConfigOutcome {
  name: string;
  status: 'completed' | 'failed' | 'skipped' | 'cancelled';
  dir: string;
  completedLevels: number[];
  failure: ConfigFailure | null;
  warnings: string[];
}

export interface MatrixResult {
  matrixDir: string;
  cancelled: boolean;
  configs: ConfigOutcome[];
  comparison: { text: string; htmlPath: string | null; json: unknown } | null;
  comparisonError: string | null;
}

class ConfigFailed extends Error {
  constructor(readonly failure: ConfigFailure) {
    super(failure.message);
  }
}

function fail(
  stage: ConfigFailure['stage'],
  code: ErrorCode,
  message: string,
  evidence: string[] = [],
): never {
  throw new ConfigFailed({ stage, code, message, evidence });
}

function matrixIdFor(plan: Plan): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${(plan.name ?? 'matrix').replace(/[^\w.-]+/g, '_')}-${stamp}`;
}

export async function runMatrix(opts: RunMatrixOptions): Promise<MatrixResult> {
  const { plan } = opts;
  const log = opts.log ?? (() => {});
  const progress = opts.progress ?? (() => {});
  const print = opts.print ?? (() => {});
  const signal = opts.signal ?? new AbortController().signal;
  // every in-flight request of a level listens on this one signal
  setMaxListeners(0, signal);
  const openHostFn = opts.openHostFn ?? ((spec: string) => openHost(spec));
  const where = opts.planPath ?? 'the plan';

  const specs = plan.configs ?? [];
  if (specs.length === 0) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `${where} has no configs: benchgate run needs a configs: list to launch servers.`,
    );
  }
  const dups = duplicateConfigNames(specs);
  if (dups.length > 0) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `${where}: expected unique config names; found ${dups.map((d) => `"${d}"`).join(', ')} more than once.`,
    );
  }
  let selected = specs;
  if (opts.only && opts.only.length > 0) {
    const unknown = opts.only.filter((n) => !specs.some((s) => s.name === n));
    if (unknown.length > 0) {
      throw new BenchgateError(
        'BG_E_USAGE',
        `--only expects config names from ${where} (${specs.map((s) => s.name).join(', ')}); found ${unknown.join(', ')}.`,
      );
    }
    selected = specs.filter((s) => opts.only!.includes(s.name));
  }
  const configs: ResolvedConfig[] = selected.map((s) => resolveConfig(plan, s, where));
  const losslessBase = losslessBaseline(plan, where);

  let matrixDir: string;
  let state: MatrixState;
  if (opts.resumeDir) {
    matrixDir = opts.resumeDir;
    const prev = await readMatrixState(matrixDir);
    if (!prev) {
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `--resume expects a matrix directory holding matrix-state.json; found none in ${matrixDir}.`,
      );
    }
    state = prev;
  } else {
    const id = matrixIdFor(plan);
    matrixDir = join(opts.outDir ?? plan.output, id);
    state = newMatrixState(id, opts.planPath);
  }
  await mkdir(matrixDir, { recursive: true });

  const completedBefore: Record<string, number[]> = {};
  for (const c of configs) {
    if (isSloSearch(plan)) {
      // a search is kept whole or re-run whole: only a completed one costs nothing
      const prev = state.configs[c.name];
      if (prev && searchCompleted(prev, c.launchFingerprint)) completedBefore[c.name] = prev.completedLevels;
      continue;
    }
    const d = decideBeforeLaunch(state.configs[c.name], c.launchFingerprint);
    if (d.action === 'keep') completedBefore[c.name] = d.completedLevels;
  }
  const preview = renderPlanPreview(
    plan,
    estimateMatrix({ plan, configs, completedLevels: completedBefore }),
  );
  preview.unshift(`${opts.resumeDir ? 'resuming' : 'matrix directory'}: ${matrixDir}`);
  for (const l of preview) log(l);
  if (opts.confirm && !(await opts.confirm(preview))) {
    log('cancelled: nothing was launched.');
    return { matrixDir, cancelled: true, configs: [], comparison: null, comparisonError: null };
  }
  await writeMatrixState(matrixDir, state);

  const outcomes: ConfigOutcome[] = [];
  for (const config of configs) {
    if (signal.aborted) {
      outcomes.push({
        name: config.name,
        status: 'cancelled',
        dir: join(matrixDir, config.name),
        completedLevels: [],
        failure: null,
        warnings: [],
      });
      continue;
    }
    outcomes.push(
      await runOneConfig(config, { ...opts, log, progress, print, signal, openHostFn, matrixDir, state }),
    );
  }

  if (losslessBase) await judgeLossless(plan, losslessBase, matrixDir, outcomes, print);
  const completed = outcomes.filter((o) => o.status === 'completed' && o.completedLevels.length > 0);
  let comparison: MatrixResult['comparison'] = null;
  let comparisonError: string | null = null;
  if (completed.length > 0) {
    try {
      comparison = await opts.stages.compare({
        runs: completed.map((o) => ({ name: o.name, dir: o.dir })),
        skipped: outcomes
          .filter((o) => !completed.includes(o))
          .map((o) => ({
            name: o.name,
            reason: o.failure?.message ?? (o.status === 'cancelled' ? 'cancelled before it ran' : o.status),
          })),
        outDir: join(matrixDir, 'report'),
        plan,
        json: opts.json ?? false,
      });
    } catch (e) {
      comparisonError = isBenchgateError(e) ? e.message : `comparison failed: ${(e as Error).message}`;
    }
  }
  return { matrixDir, cancelled: signal.aborted, configs: outcomes, comparison, comparisonError };
}

/** Compares every completed config's greedy answers with the baseline's; a required check fails the divergent ones. */
async function judgeLossless(
  plan: Plan,
  baseline: string,
  matrixDir: string,
  outcomes: ConfigOutcome[],
  print: (text: string) => void,
): Promise<void> {
  const ran = outcomes.filter((o) => o.status === 'completed' && o.completedLevels.length > 0);
  const configs = ran.map((o) => ({ name: o.name, dir: o.dir }));
  const judged = await judgeMatrixLossless({
    plan,
    baseline,
    baselineDir: join(matrixDir, baseline),
    configs,
  });
  print(`${judged.lines.join('\n')}\n`);
  for (const bad of judged.invalid) {
    const o = outcomes.find((x) => x.name === bad.name);
    if (!o) continue;
    o.status = 'failed';
    o.failure = {
      stage: 'lossless',
      code: 'BG_E_CHECK_FAILED',
      message: `config "${bad.name}": ${bad.reason}`,
      evidence: bad.evidence,
    };
  }
}

interface RunContext extends RunMatrixOptions {
  log: (line: string) => void;
  progress: (line: string) => void;
  print: (text: string) => void;
  signal: AbortSignal;
  openHostFn: (spec: string) => Promise<ProcessHost>;
  matrixDir: string;
  state: MatrixState;
}

async function supersede(
  configDir: string,
  st: ConfigState,
  reason: string,
  log: (l: string) => void,
): Promise<void> {
  const from = join(configDir, LEVELS_DIR);
  const name = `superseded-${new Date().toISOString().replace(/[-:.]/g, '')}`;
  const to = join(configDir, name);
  await rename(from, to).catch(() => undefined);
  st.supersededRuns.push(name);
  log(
    `  ${st.name}: re-running all levels because ${reason}; earlier levels moved to ${to} (never mixed in).`,
  );
  st.completedLevels = [];
  st.verifiedConfigHash = null;
}

/** Removes level directories that are not recorded as completed (a level interrupted by a kill). */
async function dropPartialLevels(configDir: string, completed: readonly number[]): Promise<number[]> {
  const dropped: number[] = [];
  const entries = await readdir(join(configDir, LEVELS_DIR)).catch(() => [] as string[]);
  for (const e of entries) {
    const idx = Number(e);
    if (Number.isInteger(idx) && !completed.includes(idx)) {
      await rm(join(configDir, LEVELS_DIR, e), { recursive: true, force: true });
      dropped.push(idx);
    }
  }
  return dropped;
}

async function runOneConfig(config: ResolvedConfig, ctx: RunContext): Promise<ConfigOutcome> {
  const { log, state, matrixDir, stages } = ctx;
  const configDir = join(matrixDir, config.name);
  await mkdir(configDir, { recursive: true });
  const prev = state.configs[config.name];
  const st: ConfigState = prev ?? {
    name: config.name,
    status: 'pending',
    launchFingerprint: config.launchFingerprint,
    verifiedConfigHash: null,
    completedLevels: [],
    lastPid: null,
    failure: null,
    supersededRuns: [],
  };
  state.configs[config.name] = st;
  const warnings: string[] = [];
  /** The state file; on a full disk the config goes on (its failure says so) and the next save retries. */
  const save = () =>
    writeMatrixState(matrixDir, state).catch((e) => {
      if (!isBenchgateError(e) || e.code !== 'BG_E_DISK') throw e;
      log(`  ! ${e.message}`);
    });
  log(`\n── ${config.name} ──`);

  const search = isSloSearch(ctx.plan);
  const searchDone = search && searchCompleted(prev, config.launchFingerprint);
  if (search && !searchDone && st.completedLevels.length > 0) {
    const n = await discardSearch(configDir, st);
    log(
      `  ${config.name}: the earlier SLO search did not finish (or its launch spec changed); its ${n} probe(s) are discarded and the search is re-run from the start.`,
    );
  }
  const before = decideBeforeLaunch(prev, config.launchFingerprint);
  if (before.action === 'discard') await supersede(configDir, st, before.reason, log);
  st.launchFingerprint = config.launchFingerprint;
  const dropped = await dropPartialLevels(configDir, st.completedLevels);
  if (dropped.length > 0 && !search)
    log(
      `  ${config.name}: discarding interrupted level(s) ${dropped.map((i) => ctx.plan.load.levels[i]).join(', ')}; they will be re-run.`,
    );
  const levelsToRun = search
    ? []
    : ctx.plan.load.levels.map((_, i) => i).filter((i) => !st.completedLevels.includes(i));
  if (search ? searchDone : levelsToRun.length === 0) {
    log(
      `  ${config.name}: ${search ? 'the SLO search already completed' : 'all levels already completed'} under the same launch spec; not relaunched.`,
    );
    st.status = 'completed';
    await save();
    return {
      name: config.name,
      status: 'completed',
      dir: configDir,
      completedLevels: [...st.completedLevels],
      failure: null,
      warnings,
    };
  }
  st.status = 'running';
  st.failure = null;
  await save();

  let host: ProcessHost | null = null;
  let server: LaunchedServer | null = null;
  let checkpoint: CheckpointOutcome | null = null;
  let failure: ConfigFailure | null = null;
  let serverPids: number[] = [];
  let session: Session | null = null;
  try {
    // 0. Room for this config's results (a full disk fails the config before anything is launched).
    try {
      checkFreeSpace(configDir, estimateRunBytes(config.plan));
    } catch (e) {
      fail('launch', 'BG_E_DISK', `config "${config.name}": ${(e as Error).message}`);
    }
    try {
      host = await ctx.openHostFn(config.hostSpec);
    } catch (e) {
      fail('launch', isBenchgateError(e) ? e.code : 'BG_E_HOST', isBenchgateError(e) ? e.message : String(e));
    }
    // 1. Leftovers on the port, then launch.
    let leftovers: Awaited<ReturnType<typeof checkLeftovers>>;
    try {
      leftovers = await checkLeftovers(host, config.port, {
        kill: ctx.killLeftovers ?? false,
        userPids: ctx.killLeftoverPids ?? [],
        launched: st.lastPid ? [{ pid: st.lastPid, startTime: st.lastStartTime ?? null }] : [],
      });
    } catch (e) {
      fail(
        'leftovers',
        isBenchgateError(e) ? e.code : 'BG_E_HOST',
        `config "${config.name}": could not inspect port ${config.port} on ${host.description}: ${(e as Error).message}`,
      );
    }
    if (leftovers.message) log(`  ${leftovers.message}`);
    const group = await checkPreviousGroup(
      host,
      st.lastPid ? { pid: st.lastPid, startTime: st.lastStartTime ?? null } : null,
      { kill: ctx.killLeftovers ?? false },
    );
    if (group.message) log(`  ${group.message}`);
    if (group.pids.length > 0 && !group.killed) warnings.push(group.message ?? '');
    if (!leftovers.free) {
      fail(
        'leftovers',
        'BG_E_LAUNCH',
        leftovers.message ?? `port ${config.port} is busy.`,
        leftovers.holders.map((h) => `PID ${h.pid}: ${h.argv}`),
      );
    }
    log(
      `  launching: ${redactArgv(config.argv).join(' ')} (output → ${join(configDir, SERVER_OUTPUT_FILE)})`,
    );
    try {
      server = await launchServer(host, config, configDir);
    } catch (e) {
      fail('launch', isBenchgateError(e) ? e.code : 'BG_E_LAUNCH', (e as Error).message);
    }
    st.lastPid = server.proc.pid;
    st.lastStartTime = server.startTime;
    await save();

    // 2. Ready.
    const ready = await waitForReady({
      url: config.url,
      timeoutS: config.readyTimeoutS,
      exited: server.proc.exited,
      log: server.log,
      signal: ctx.signal,
      onProgress: (l) => ctx.progress(`  ${config.name}: waiting for ready ${l}`),
    });
    ctx.progress('');
    const tail = server.log.excerpt(12);
    switch (ready.kind) {
      case 'ready':
        log(`  ready after ${ready.elapsedS.toFixed(1)} s`);
        st.measured = { ...st.measured, readyS: ready.elapsedS };
        serverPids = (await processGroupMembers(host, server.proc.pid)).map((m) => m.pid);
        break;
      case 'exited':
        fail(
          'ready',
          'BG_E_LAUNCH',
          `config "${config.name}": the server exited during start-up (${ready.signal ?? `exit status ${ready.code}`}) after ${ready.elapsedS.toFixed(1)} s.`,
          tail,
        );
        break;
      case 'crashed':
        fail(
          'ready',
          'BG_E_LAUNCH',
          `config "${config.name}": crash signature in the server output at line ${ready.line} while starting.`,
          ready.excerpt.split('\n'),
        );
        break;
      case 'flapping':
        fail(
          'ready',
          'BG_E_LAUNCH',
          `config "${config.name}": /health flapped between healthy and unhealthy ${ready.flips} times during start-up.`,
          tail,
        );
        break;
      case 'timeout':
        fail(
          'ready',
          'BG_E_LAUNCH',
          `config "${config.name}": expected /health to answer 200 within ${config.readyTimeoutS} s; last answer: ${ready.lastStatus}.`,
          tail,
        );
        break;
      case 'not-listening':
        fail(
          'ready',
          'BG_E_LAUNCH',
          `config "${config.name}": the server is running but nothing is listening at ${config.url} (connection refused for ${ready.refusedS.toFixed(0)} s) and its output has not changed for ${ready.quietS.toFixed(0)} s; check the port in launch.args against url.`,
          tail,
        );
        break;
      case 'aborted':
        fail('ready', 'BG_E_ABORTED', `config "${config.name}": interrupted while waiting for ready.`);
    }

    // 3. Checkpoint with the config's own expectations.
    checkpoint = await stages.checkpoint({
      plan: config.plan,
      host,
      signal: ctx.signal,
      onProgress: (l) => ctx.progress(`  ${config.name}: ${l}`),
    });
    ctx.progress('');
    ctx.print(stages.renderChecklist(checkpoint.report, config.name));
    const crashAfterCheck = server.log.crashHit;
    if (!checkpoint.report.ok || !checkpoint.verifiedTarget) {
      const failed = gateFailed(checkpoint.report.findings);
      const evidence = failed.map(
        (f) =>
          `${f.id}: ${f.title}${f.expected ? `; expected ${f.expected}` : ''}${f.found ? `; found ${f.found}` : ''}${f.evidence[0] ? ` (${f.evidence[0].where})` : ''}`,
      );
      if (crashAfterCheck)
        evidence.push(`server output line ${crashAfterCheck.line}:`, ...crashAfterCheck.excerpt.split('\n'));
      fail(
        'checkpoint',
        'BG_E_CHECK_FAILED',
        `config "${config.name}": the checkpoint failed (${failed.map((f) => f.id).join(', ') || 'no verified target'}); skipped.`,
        evidence,
      );
    }
    const hash = verifiedConfigHash(checkpoint.verifiedTarget);
    const after = decideAfterCheckpoint(st, hash);
    if (after.action === 'discard') await supersede(configDir, st, after.reason, log);
    st.verifiedConfigHash = hash;
    await save();
    if (losslessEnabled(config.plan)) {
      const line = await collectConfigAnswers({
        plan: config.plan,
        url: config.url,
        verifiedTarget: checkpoint.verifiedTarget,
        configDir,
        signal: ctx.signal,
      });
      log(`  ${line}`);
    }

    // 4. One session of the server (detection, smoke, tokenizer, one clock anchor), then the sweep,
    // one level at a time, each level in its own run directory, with a drift check after each.
    const verified = checkpoint.verifiedTarget;
    const live = server;
    const onProgress = (l: string) => ctx.progress(`  ${config.name}: ${l}`);
    try {
      session = await stages.openSession({
        plan: config.plan,
        planPath: ctx.planPath,
        checkpoint,
        onProgress,
      });
    } catch (e) {
      fail(
        'sweep',
        isBenchgateError(e) ? e.code : 'BG_E_INTERNAL',
        `config "${config.name}": could not prepare the sweep: ${(e as Error).message}`,
        server.log.excerpt(8),
      );
    }
    const afterLevel = async (): Promise<{ valid: boolean; reasons: string[] }> => {
      const reasons: string[] = [];
      const crash = live.log.crashHit;
      if (crash) reasons.push(`the server logged a crash at output line ${crash.line}`);
      const drift = await stages.driftCheck({ plan: config.plan, host: host!, verifiedTarget: verified });
      return { valid: reasons.length === 0 && drift.valid, reasons: [...reasons, ...drift.reasons] };
    };
    const failedWith = (e: unknown, what: string): never => {
      if (e instanceof ConfigFailed) throw e;
      const crash = live.log.crashHit;
      return fail(
        'sweep',
        isBenchgateError(e) ? e.code : 'BG_E_INTERNAL',
        `config "${config.name}": ${what} failed: ${(e as Error).message}`,
        crash ? [`server output line ${crash.line}:`, ...crash.excerpt.split('\n')] : live.log.excerpt(8),
      );
    };
    /** After a level (or probe) is written: kept only when the server is alive, uncrashed and the level valid. */
    const keepLevel = async (
      idx: number,
      summary: LevelSummary,
      what: string,
      startedMs: number,
      tolerated: readonly string[] = [],
    ) => {
      ctx.progress('');
      const crash = live.log.crashHit;
      const exited = await Promise.race([
        live.proc.exited.then(() => true),
        new Promise<boolean>((r) => setImmediate(() => r(false))),
      ]);
      if (crash || exited) {
        fail(
          'sweep',
          'BG_E_LAUNCH',
          `config "${config.name}": the server ${crash ? `logged a crash at output line ${crash.line}` : 'exited'} during ${what}; the level is not kept.`,
          crash ? crash.excerpt.split('\n') : live.log.excerpt(12),
        );
      }
      const reasons = summary.validity.reasons.filter((r) => !tolerated.includes(r));
      if (!summary.validity.valid && reasons.length > 0) {
        fail(
          'sweep',
          'BG_E_CHECK_FAILED',
          `config "${config.name}": ${what} is invalid (${reasons.join('; ')}); it is not kept and later ${search ? 'probes' : 'levels'} are not run.`,
          reasons,
        );
      }
      st.completedLevels = [...st.completedLevels, idx].sort((x, y) => x - y);
      st.measured = {
        ...st.measured,
        levelS: { ...st.measured?.levelS, [idx]: (monoNowMs() - startedMs) / 1000 },
      };
      await save();
    };
    if (search) {
      await runConfigSearch({
        session,
        configDir,
        signal: ctx.signal,
        afterLevel,
        keepLevel,
        log,
        nowMs: monoNowMs,
      }).catch((e) => failedWith(e, 'the SLO search'));
      st.searchCompleted = true;
      await save();
    }
    for (const idx of levelsToRun) {
      const label = levelLabel(levelKeyOf(ctx.plan.load, ctx.plan.load.levels[idx]));
      if (ctx.signal.aborted)
        fail(
          'sweep',
          'BG_E_ABORTED',
          `config "${config.name}": interrupted before level ${ctx.plan.load.levels[idx]}.`,
        );
      const runDir = levelRunDir(configDir, idx);
      await rm(runDir, { recursive: true, force: true });
      log(`  level ${label}`);
      const levelStartMs = monoNowMs();
      const what = `level ${ctx.plan.load.levels[idx]}`;
      const outcome = await sweepOneLevel(session, idx, runDir, ctx.signal, afterLevel).catch((e) =>
        failedWith(e, what),
      );
      await keepLevel(idx, outcome.summary, what, levelStartMs);
    }
  } catch (e) {
    failure =
      e instanceof ConfigFailed
        ? e.failure
        : {
            stage: 'sweep',
            code: isBenchgateError(e) ? e.code : 'BG_E_INTERNAL',
            message: `config "${config.name}": ${(e as Error).message}`,
            evidence: [],
          };
  } finally {
    // 5. Tear down, whatever happened.
    if (host && server) {
      const td = await tearDown(host, server.proc, {
        port: config.port,
        signal: config.stop.signal,
        command: config.stop.command,
        graceS: config.stop.graceS,
      }).catch((e: Error) => ({
        clean: false,
        message: `tear-down failed: ${e.message}`,
        escalatedToKill: false,
      }));
      if (td.escalatedToKill)
        warnings.push(
          `the server did not stop within ${config.stop.graceS} s of ${config.stop.signal}; SIGKILL sent to its process group.`,
        );
      if (!td.clean && td.message) warnings.push(td.message);
      for (const w of warnings) log(`  ! ${w}`);
      if (td.clean) log('  torn down: port free, no process of the server left.');
      const gpu = await checkGpuRelease(host, {
        serverPids: [server.proc.pid, ...serverPids],
        maxMemoryUsedMiB: ctx.plan.gpus?.max_memory_used_mib,
        timeoutS: 15,
      });
      if (gpu.message) {
        warnings.push(gpu.message);
        log(`  ! ${gpu.message}`);
      }
    }
    session?.close();
    await host?.close().catch(() => undefined);
  }

  const cancelled = ctx.signal.aborted;
  st.failure = failure;
  st.status = failure ? (cancelled ? 'pending' : 'failed') : 'completed';
  await save();
  if (st.completedLevels.length > 0) {
    await assembleConfigRun({
      configDir,
      runId: `${state.matrixId}/${config.name}`,
      name: config.name,
      plan: config.plan,
      planPath: ctx.planPath,
      completedLevels: st.completedLevels,
      checkpoint,
      incomplete: failure ? failure.message : null,
    }).catch((e) => {
      if (!isBenchgateError(e) || e.code !== 'BG_E_DISK') throw e;
      // the levels stay complete under levels/NN/; --resume assembles them again
      failure ??= {
        stage: 'sweep',
        code: e.code,
        message: `config "${config.name}": ${e.message}`,
        evidence: [],
      };
    });
  }
  if (failure) {
    log(`  ✖ ${failure.message}`);
    for (const ev of failure.evidence.slice(0, 14)) log(`      ${ev}`);
  }
  return {
    name: config.name,
    status: failure ? (cancelled ? 'cancelled' : 'failed') : 'completed',
    dir: configDir,
    completedLevels: [...st.completedLevels],
    failure,
    warnings,
  };
}
