// `benchgate run PLAN`: the configuration matrix (launch → ready → checkpoint → sweep → tear down per
// config, then compare). Wiring only: flags → runMatrix, results → stdout, progress → stderr.

import { dirname } from 'node:path';
import type { Command } from 'commander';
import { silentProgress, stderrProgress } from '../../load/progress.js';
import { defaultStages } from '../../matrix/default-stages.js';
import { killLaunchedServers } from '../../matrix/launched-servers.js';
import { matrixExitCode, renderMatrixSummary } from '../../matrix/render-summary.js';
import { runMatrix } from '../../matrix/run-matrix.js';
import { runSingle } from '../../matrix/single-run.js';
import { loadPlanFile } from '../../plan/load.js';
import type { Plan } from '../../plan/schema.js';
import { checkPlanFiles } from '../../session/plan-files.js';
import { recordRuns } from '../../store/record-run.js';
import { action, parseNumberList, parseWorkers } from '../action.js';
import { askYesNo, type MatrixConsole, matrixConsole, withInterrupt } from '../terminal.js';
import { noteToStderr } from './store-options.js';

interface RunFlags {
  resume?: string;
  yes?: boolean;
  only?: string[];
  /** true or '' (bare flag): only processes benchgate launched; 'PID,PID': those too. */
  killLeftovers?: boolean | string;
  json?: boolean;
  out?: string;
  workers?: string;
}

/** The PIDs named by --kill-leftovers=PID,PID (none for the bare flag). */
function namedPids(flag: boolean | string | undefined): number[] {
  if (typeof flag !== 'string' || flag === '') return [];
  return parseNumberList('--kill-leftovers', flag, { integer: true });
}

/** No servers to launch: checkpoint + sweep + report against the running target. */
function runAgainstTarget(plan: Plan, planPath: string, flags: RunFlags, io: MatrixConsole): Promise<number> {
  return withInterrupt(async (signal, interruptExit) => {
    const r = await runSingle({
      plan,
      planPath,
      stages: defaultStages(),
      signal,
      progress: flags.json ? silentProgress : stderrProgress({ json: false }),
      print: io.print,
      onProgress: io.progress,
      json: flags.json ?? false,
    });
    await recordRuns([r.runDir], { results: plan.output, note: noteToStderr, interrupted: r.interrupted });
    if (flags.json)
      process.stdout.write(
        `${JSON.stringify({ runDir: r.runDir, comparison: r.comparison?.json ?? null }, null, 2)}\n`,
      );
    else {
      if (r.comparison) io.print(r.comparison.text);
      io.print(`run directory: ${r.runDir}`);
      if (r.comparison?.htmlPath) io.print(`HTML report: ${r.comparison.htmlPath}`);
    }
    return r.interrupted ? interruptExit() : 0;
  });
}

/** The matrix; a second Ctrl-C still ends the servers it launched before quitting. */
function runConfigs(plan: Plan, planPath: string, flags: RunFlags, io: MatrixConsole): Promise<number> {
  const run = async (signal: AbortSignal, interruptExit: () => number): Promise<number> => {
    const result = await runMatrix({
      plan,
      planPath,
      resumeDir: flags.resume,
      outDir: flags.out,
      only: flags.only,
      killLeftovers: flags.killLeftovers !== undefined && flags.killLeftovers !== false,
      killLeftoverPids: namedPids(flags.killLeftovers),
      json: flags.json ?? false,
      confirm:
        flags.yes || !io.interactive ? undefined : () => askYesNo(`Start ${plan.configs?.length} config(s)?`),
      log: io.log,
      progress: io.progress,
      print: io.print,
      stages: defaultStages(),
      signal,
    });
    await recordRuns([result.matrixDir], {
      results: dirname(result.matrixDir),
      note: noteToStderr,
      interrupted: result.cancelled,
    });
    if (flags.json) {
      process.stdout.write(
        `${JSON.stringify({ schema: 'benchgate.matrix/1', ...result, comparison: result.comparison?.json ?? null }, null, 2)}\n`,
      );
    } else {
      if (result.comparison) io.print(result.comparison.text);
      io.print(renderMatrixSummary(plan, result));
      if (result.comparison?.htmlPath) io.print(`HTML report: ${result.comparison.htmlPath}`);
    }
    return result.cancelled ? interruptExit() : matrixExitCode(result);
  };
  return withInterrupt(run, { beforeForcedExit: killLaunchedServers });
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description(
      'Launch each configuration of a plan in turn, verify it, sweep its load levels, tear it down, and compare them.',
    )
    .argument('<plan>', 'plan file (YAML) with configs:')
    .option(
      '--resume <dir>',
      'continue an interrupted matrix directory (keeps levels whose configuration is unchanged)',
    )
    .option('--yes', 'do not ask for confirmation before starting')
    .option('--only <name...>', 'run only the named config(s)')
    .option(
      '--kill-leftovers [pids]',
      "end processes an earlier benchgate run left holding a config's port; with =PID,PID also the processes you name (others are only reported)",
    )
    .option('--out <dir>', "parent directory for the matrix (default: the plan's output)")
    .option('--json', 'print only a JSON result on stdout; no decoration on stderr')
    .option(
      '--workers <n|auto>',
      "worker threads sending the load (overrides the plan's load.workers; auto: CPU cores − 1)",
    )
    .action(
      action(async (planPath: string, flags: RunFlags) => {
        const plan = await loadPlanFile(planPath);
        await checkPlanFiles(plan, { planPath });
        if (flags.workers !== undefined) plan.load.workers = parseWorkers(flags.workers);
        const io = matrixConsole({ json: flags.json ?? false });
        if (!plan.configs || plan.configs.length === 0) return runAgainstTarget(plan, planPath, flags, io);
        return runConfigs(plan, planPath, flags, io);
      }),
    );
}
