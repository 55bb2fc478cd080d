// `benchgate bench [PLAN]`: flags compose with (and override) a plan file (plan/merge-flags.ts); parse, call runBench,
// print the table (or the summary JSON with --json), map Ctrl-C to exit 130 and SIGTERM to 143. No logic beyond wiring.

import type { Command } from 'commander';
import { checkpointGate } from '../../checkpoint/gate.js';
import { renderChecklist } from '../../checkpoint/render-text.js';
import { wantsColor } from '../../core/color.js';
import { BenchgateError } from '../../core/errors.js';
import { openHost } from '../../hosts/open-host.js';
import { stderrProgress } from '../../load/progress.js';
import { withholdUnsupported } from '../../metrics/tail-samples.js';
import { loadPlanFile } from '../../plan/load.js';
import { resolvePlanWithFlags } from '../../plan/merge-flags.js';
import type { PlanInput } from '../../plan/schema.js';
import { levelTable } from '../../results/level-table.js';
import { checkPlanFiles } from '../../session/plan-files.js';
import { type RunBenchResult, runBench } from '../../session/run-bench.js';
import { recordRuns } from '../../store/record-run.js';
import { action, parseNumberList, parsePositive, parseWorkers } from '../action.js';
import { addTargetOptions, type TargetFlags, targetInput } from '../target-flags.js';
import { withInterrupt } from '../terminal.js';
import { noteToStderr } from './store-options.js';

interface BenchFlags extends TargetFlags {
  concurrency?: string;
  rate?: string;
  maxConcurrency?: string;
  arrival?: string;
  requests?: string;
  duration?: string;
  warmup?: string;
  trials?: string;
  cache?: string;
  workers?: string;
  inputTokens?: string;
  outputTokens?: string;
  dataset?: string;
  seed?: string;
  salt?: string;
  out?: string;
  name?: string;
  json?: boolean;
  force?: boolean;
}

/** The plan fragment the flags describe (only what was given). */
export function flagsToPlanInput(o: BenchFlags): PlanInput {
  if (o.concurrency !== undefined && o.rate !== undefined) {
    throw new BenchgateError(
      'BG_E_USAGE',
      '--concurrency and --rate are exclusive: give closed-loop concurrency levels or open-loop rates, not both.',
    );
  }
  const target = targetInput(o);
  const workload: Record<string, unknown> = {};
  if (o.inputTokens !== undefined)
    workload.input_tokens = { fixed: parsePositive('--input-tokens', o.inputTokens, { integer: true }) };
  if (o.outputTokens !== undefined)
    workload.output_tokens = { fixed: parsePositive('--output-tokens', o.outputTokens, { integer: true }) };
  if (o.dataset !== undefined) workload.dataset = o.dataset;
  if (o.seed !== undefined)
    workload.seed = parsePositive('--seed', o.seed, { integer: true, allowZero: true });
  if (o.salt !== undefined) workload.salt = parsePositive('--salt', o.salt, { integer: true });
  const load: Record<string, unknown> = {};
  if (o.concurrency !== undefined) {
    load.kind = 'concurrency';
    load.levels = parseNumberList('--concurrency', o.concurrency, { integer: true });
  }
  if (o.rate !== undefined) {
    load.kind = 'rate';
    load.levels = parseNumberList('--rate', o.rate);
  }
  if (o.maxConcurrency !== undefined)
    load.max_concurrency = parsePositive('--max-concurrency', o.maxConcurrency, { integer: true });
  if (o.arrival !== undefined) load.arrival = o.arrival;
  if (o.requests !== undefined) load.requests = parsePositive('--requests', o.requests, { integer: true });
  if (o.duration !== undefined) load.duration = o.duration;
  if (o.warmup !== undefined)
    load.warmup = parsePositive('--warmup', o.warmup, { integer: true, allowZero: true });
  if (o.workers !== undefined) load.workers = parseWorkers(o.workers);
  if (o.trials !== undefined) load.trials = parsePositive('--trials', o.trials, { integer: true });
  if (o.cache !== undefined) load.cache = o.cache;
  const input: Record<string, unknown> = {};
  if (target) input.target = target;
  if (Object.keys(workload).length) input.workload = workload;
  if (Object.keys(load).length) input.load = load;
  if (o.out !== undefined) input.output = o.out;
  if (o.name !== undefined) input.name = o.name;
  return input as PlanInput;
}

export function registerBench(program: Command): void {
  const bench = program
    .command('bench')
    .description(
      'Benchmark a server across load levels (closed loop --concurrency or open loop --rate); with no URL, the embedded simulator.',
    )
    .argument('[plan]', 'plan file (YAML or JSON); flags override its values');
  addTargetOptions(bench)
    .option('--concurrency <list>', 'closed-loop levels, e.g. 1,8,64')
    .option('--rate <list>', 'open-loop levels in requests/s, e.g. 2,4,8')
    .option(
      '--max-concurrency <n>',
      'open loop: cap on requests in flight (waiting is recorded as queue time)',
    )
    .option('--arrival <kind>', 'open loop: constant | poisson | gamma')
    .option('--requests <n>', 'measured requests per level')
    .option('--duration <d>', 'per-level duration, e.g. 90s or 5m')
    .option('--warmup <n>', 'warmup requests per level (excluded from metrics)')
    .option(
      '--trials <n>',
      'run the whole sweep N times; compare then puts run-to-run variance inside its intervals',
    )
    .option(
      '--cache <keep|flush>',
      "the server's prefix cache before each level: keep it, or flush it where the engine offers a way",
    )
    .option(
      '--workers <n|auto>',
      'worker threads sending the load, each an exact share of every level (auto: CPU cores − 1; default 1)',
    )
    .option('--input-tokens <n>', 'prompt length in tokens')
    .option('--output-tokens <n>', 'requested output tokens')
    .option('--dataset <d>', 'random, a ShareGPT JSON file or a JSONL file of prompts')
    .option('--seed <n>', 'seed for prompts, lengths and arrivals')
    .option(
      '--salt <n>',
      "prompt salt: replays a run's exact prompts (default: fresh per run, in the manifest)",
    )
    .option('--out <dir>', 'results directory (each run gets <dir>/<run-id>/)')
    .option('--name <name>', 'run name')
    .option('--json', 'print only the run summary JSON on stdout; no live progress')
    .option('--force', 'run even when required checkpoint checks fail (recorded in the manifest)')
    .action(action(benchAction));
}

/** `bench`: the plan with the flags over it, the checkpoint as its gate, the run, its table and exit status. */
async function benchAction(planPath: string | undefined, o: BenchFlags): Promise<number> {
  const flags = flagsToPlanInput(o);
  const base = planPath ? await loadPlanFile(planPath) : {};
  const plan = resolvePlanWithFlags(base, flags, {
    planPath: planPath ?? null,
    levelsFlag: o.rate !== undefined ? '--rate' : '--concurrency',
  });
  await checkPlanFiles(plan, { planPath: planPath ?? null, flags });
  const progress = stderrProgress({ json: o.json === true });
  return withInterrupt(async (signal, interruptExit) => {
    const host = await openHost(plan.host);
    const gate = checkpointGate({
      plan,
      host,
      signal,
      onProgress: (l) => progress.note(l),
      onReport: ({ report }) =>
        process.stderr.write(
          `${renderChecklist(report, { color: !o.json && wantsColor(process.stderr) })}\n`,
        ),
    });
    try {
      const result = await runBench({
        plan,
        planPath: planPath ?? null,
        signal,
        progress,
        force: o.force === true,
        beforeLoad: gate.beforeLoad,
        afterLevel: gate.afterLevel,
      });
      await recordRuns([result.runDir], {
        results: plan.output,
        note: noteToStderr,
        interrupted: result.interrupted,
      });
      if (o.json)
        process.stdout.write(
          `${JSON.stringify({ ...withholdUnsupported(result.summary), validity: result.validity }, null, 2)}
`,
        );
      else
        process.stdout.write(`${levelTable(result.summary, result.validity)}results: ${result.runDir}
`);
      return result.interrupted ? interruptExit() : benchExitCode(result);
    } finally {
      await host.close();
    }
  });
}

/** 1 when every request failed or the run ended before its last level (each said on stderr), else 0. */
function benchExitCode(result: RunBenchResult): number {
  if (result.allFailed) {
    process.stderr.write(
      `benchgate: every request of the run failed; see errorsByCode in ${result.runDir}/summary.json [BG_E_ALL_FAILED]\n`,
    );
    return 1;
  }
  if (result.endedEarly) {
    process.stderr.write(
      `benchgate: the run ended before its last level: ${result.endedEarly.message} [${result.endedEarly.code}]; the levels so far are in ${result.runDir}\n`,
    );
    return 1;
  }
  return 0;
}
