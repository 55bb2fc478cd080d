// `benchgate demo` (what `npm start` runs): the README story on the embedded simulator — four SGLang-like
// servers launched as real child processes, checked, swept, torn down and compared. Wiring only.

import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { monoNowMs } from '../../core/clock.js';
import { defaultStages } from '../../matrix/default-stages.js';
import { buildDemoPlan, STORY_TIME_SCALE } from '../../matrix/demo-plan.js';
import { killLaunchedServers } from '../../matrix/launched-servers.js';
import { renderMatrixSummary } from '../../matrix/render-summary.js';
import { runMatrix } from '../../matrix/run-matrix.js';
import { recordRuns } from '../../store/record-run.js';
import { action, parsePositive } from '../action.js';
import { matrixConsole, withInterrupt } from '../terminal.js';
import { noteToStderr } from './store-options.js';

/** How to start this very benchgate again as a child: the built CLI, or the TypeScript source under tsx. */
export function selfArgv(): string[] {
  const main = fileURLToPath(new URL('../main.js', import.meta.url));
  if (import.meta.url.endsWith('.ts')) {
    return [
      process.execPath,
      '--import',
      import.meta.resolve('tsx'),
      fileURLToPath(new URL('../main.ts', import.meta.url)),
    ];
  }
  return [process.execPath, main];
}

interface DemoFlags {
  out: string;
  timeScale?: string;
  requests?: string;
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'Run the README story on the embedded simulator: baseline vs EAGLE-3 configs, one silently drifted.',
    )
    .option('--out <dir>', 'parent directory for the demo run', 'results')
    .option('--time-scale <x>', `simulator speed-up (larger is faster; default ${STORY_TIME_SCALE})`)
    .option('--requests <n>', 'measured requests per level')
    .action(
      action(async (flags: DemoFlags) => {
        const started = monoNowMs();
        const io = matrixConsole({ json: false });
        const timeScale = flags.timeScale ? parsePositive('--time-scale', flags.timeScale) : STORY_TIME_SCALE;
        const plan = await buildDemoPlan({
          benchgateArgv: selfArgv(),
          output: flags.out,
          timeScale,
          requests: flags.requests
            ? parsePositive('--requests', flags.requests, { integer: true })
            : undefined,
        });
        io.log(
          'benchgate demo: an SGLang-like MoE server (simulated, 8x PCIe GPUs) under four configurations:',
        );
        io.log('  baseline, EAGLE-3 top-k 4 (spec v1, overlap off), EAGLE-3 top-k 1 (spec v2, overlap on),');
        io.log('  and a spec-v2 config whose log claims overlap is on while the server runs without it.');
        io.log(
          `  Levels ${plan.load.levels.join(', ')} concurrent requests. The simulator runs ${timeScale}x faster than the modelled` +
            ` GPUs: tok/s read ${timeScale}x high and ms ${timeScale}x low; ratios between configs are unaffected.`,
        );
        return withInterrupt(
          async (signal, interruptExit) => {
            const result = await runMatrix({
              plan,
              planPath: null,
              log: io.log,
              progress: io.progress,
              print: io.print,
              stages: defaultStages(),
              signal,
            });
            await recordRuns([result.matrixDir], {
              results: flags.out,
              note: noteToStderr,
              interrupted: result.cancelled,
            });
            if (result.comparison) io.print(result.comparison.text);
            io.print(renderMatrixSummary(plan, result));
            if (result.comparison?.htmlPath) io.print(`HTML report: ${result.comparison.htmlPath}`);
            io.log(`demo finished in ${((monoNowMs() - started) / 1000).toFixed(1)} s`);
            if (result.cancelled) return interruptExit();
            const byName = new Map(result.configs.map((c) => [c.name, c]));
            const drifted = byName.get('eagle3-topk1-v2-drifted');
            const goodOk = ['baseline', 'eagle3-topk4-v1', 'eagle3-topk1-v2'].every(
              (n) => byName.get(n)?.status === 'completed',
            );
            const driftCaught = drifted?.status === 'failed' && drifted.failure?.stage === 'checkpoint';
            if (!driftCaught)
              io.log('demo: expected the drifted config to be caught by the checkpoint; it was not.');
            return goodOk && driftCaught ? 0 : 1;
          },
          { beforeForcedExit: killLaunchedServers },
        );
      }),
    );
}
