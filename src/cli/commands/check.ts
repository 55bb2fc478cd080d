// `benchgate check [PLAN] [--url URL] [--engine E] [--api A] [--model M] [--json] [--format
// text|markdown|json] [--record-reference FILE]`: run the checkpoint and print the findings (with the
// lossless reference comparison or recording). The target flags override the plan's, and a bare
// `check --url URL` checks a server with no plan. Exit 0 when every required check passes, 1 when any
// fails, 2 on a usage error.

import type { Command } from 'commander';
import { renderJson } from '../../checkpoint/render-json.js';
import { renderMarkdown } from '../../checkpoint/render-markdown.js';
import { renderChecklist } from '../../checkpoint/render-text.js';
import { runCheckpoint } from '../../checkpoint/run.js';
import { wantsColor } from '../../core/color.js';
import { BenchgateError } from '../../core/errors.js';
import { throttledLines } from '../../load/progress.js';
import { loadPlanFile } from '../../plan/load.js';
import { resolvePlanWithFlags } from '../../plan/merge-flags.js';
import type { Plan } from '../../plan/schema.js';
import { action } from '../action.js';
import { addTargetOptions, type TargetFlags, targetInput } from '../target-flags.js';

const FORMATS = ['text', 'markdown', 'json'] as const;
type Format = (typeof FORMATS)[number];

interface CheckFlags extends TargetFlags {
  json?: boolean;
  format: string;
  recordReference?: string;
}

/** The plan file with the target flags over it, or the flags alone (then --url is needed). */
async function checkPlan(planPath: string | undefined, o: TargetFlags): Promise<Plan> {
  if (planPath === undefined && o.url === undefined)
    throw new BenchgateError(
      'BG_E_USAGE',
      'check needs a plan file or --url URL (the server to check), e.g. benchgate check --url http://127.0.0.1:30000.',
    );
  const target = targetInput(o);
  const base = planPath ? await loadPlanFile(planPath) : {};
  return resolvePlanWithFlags(base, target ? { target } : {}, {
    planPath: planPath ?? null,
    levelsFlag: '--concurrency',
  });
}

export function registerCheck(program: Command): void {
  const check = program
    .command('check')
    .description(
      'Prove the target runs the intended configuration (the checkpoint); exit 1 if a required check fails.',
    )
    .argument('[plan]', 'plan file (YAML or JSON); the target flags override its values');
  addTargetOptions(check, ' (no plan needed)')
    .option('--json', 'print the findings and verified target as JSON (same as --format json)')
    .option('--format <format>', 'output format: text, markdown or json', 'text')
    .option(
      '--record-reference <file>',
      "write the server's greedy answers to the lossless prompts to FILE, for a later check with lossless.reference",
    )
    .action(
      action(async (planPath: string | undefined, o: CheckFlags) => {
        const format = (o.json ? 'json' : o.format) as Format;
        if (!FORMATS.includes(format)) {
          throw new BenchgateError(
            'BG_E_USAGE',
            `--format expects one of text, markdown, json; found "${o.format}".`,
          );
        }
        const plan = await checkPlan(planPath, {
          url: o.url,
          engine: o.engine,
          api: o.api,
          model: o.model,
        });
        const controller = new AbortController();
        const onSigint = () => controller.abort();
        process.once('SIGINT', onSigint);
        try {
          const { report, verifiedTarget } = await runCheckpoint({
            plan,
            signal: controller.signal,
            recordReference: o.recordReference,
            onProgress:
              format === 'json'
                ? undefined
                : process.stderr.isTTY
                  ? (line) => process.stderr.write(`${line}\n`)
                  : throttledLines((line) => process.stderr.write(`${line}\n`)),
          });
          const out =
            format === 'json'
              ? renderJson(report, verifiedTarget)
              : format === 'markdown'
                ? renderMarkdown(report)
                : renderChecklist(report, { color: wantsColor(process.stdout), target: verifiedTarget });
          process.stdout.write(out);
          return report.ok ? 0 : 1;
        } finally {
          process.off('SIGINT', onSigint);
        }
      }),
    );
}
