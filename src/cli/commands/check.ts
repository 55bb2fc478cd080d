// `benchgate check PLAN [--json] [--format text|markdown|json] [--record-reference FILE]`: run the
// checkpoint and print the findings (with the lossless reference comparison or recording). Exit 0 when every required check passes, 1 when any fails, 2 on a usage error.

import type { Command } from 'commander';
import { renderJson } from '../../checkpoint/render-json.js';
import { renderMarkdown } from '../../checkpoint/render-markdown.js';
import { renderChecklist } from '../../checkpoint/render-text.js';
import { runCheckpoint } from '../../checkpoint/run.js';
import { wantsColor } from '../../core/color.js';
import { BenchgateError } from '../../core/errors.js';
import { throttledLines } from '../../load/progress.js';
import { loadPlanFile } from '../../plan/load.js';
import { action } from '../action.js';

const FORMATS = ['text', 'markdown', 'json'] as const;
type Format = (typeof FORMATS)[number];

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description(
      'Prove the target runs the intended configuration (the checkpoint); exit 1 if a required check fails.',
    )
    .argument('<plan>', 'plan file (YAML or JSON)')
    .option('--json', 'print the findings and verified target as JSON (same as --format json)')
    .option('--format <format>', 'output format: text, markdown or json', 'text')
    .option(
      '--record-reference <file>',
      "write the server's greedy answers to the lossless prompts to FILE, for a later check with lossless.reference",
    )
    .action(
      action(async (planPath: string, o: { json?: boolean; format: string; recordReference?: string }) => {
        const format = (o.json ? 'json' : o.format) as Format;
        if (!FORMATS.includes(format)) {
          throw new BenchgateError(
            'BG_E_USAGE',
            `--format expects one of text, markdown, json; found "${o.format}".`,
          );
        }
        const plan = await loadPlanFile(planPath);
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
                : renderChecklist(report, { color: wantsColor(process.stdout) });
          process.stdout.write(out);
          return report.ok ? 0 : 1;
        } finally {
          process.off('SIGINT', onSigint);
        }
      }),
    );
}
