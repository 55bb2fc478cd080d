// The matrix's lossless stage: while a config's server is up (after its checkpoint), ask it the
// lossless prompts and keep the answers in its run directory; after every config ran, compare each
// with the baseline's answers, write each config's verdict (lossless.json) and say which configs a
// required check makes invalid.

import { collectLosslessAnswers, losslessSettings } from '../checkpoint/lossless.js';
import { targetHeaders } from '../checkpoint/run.js';
import { createTargetHttp } from '../client/target-http.js';
import { BenchgateError } from '../core/errors.js';
import { getAdapter } from '../engines/index.js';
import type { VerifiedTarget } from '../engines/types.js';
import {
  compareLossless,
  type LosslessComparison,
  losslessLines,
  losslessValidity,
  VERDICT_WORDS,
} from '../metrics/lossless.js';
import type { Plan } from '../plan/schema.js';
import {
  type LosslessRecord,
  readLosslessAnswers,
  writeLosslessAnswers,
  writeLosslessRecord,
} from '../results/lossless-file.js';
import { matrixLossless } from './lossless-default.js';

/** Whether this config's plan asks its server the lossless prompts (config-plan.ts fills the matrix's default in). */
export function losslessEnabled(plan: Plan): boolean {
  return plan.lossless?.enabled === true;
}

/**
 * The baseline config's name when the matrix runs the check (lossless-default.ts decides): `lossless.baseline`,
 * else the first config without speculative decoding, else the first config.
 */
export function losslessBaseline(plan: Plan, where: string): string | null {
  const names = (plan.configs ?? []).map((c) => c.name);
  const named = plan.lossless?.baseline;
  if (plan.lossless?.enabled && named !== undefined && !names.includes(named)) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `${where}: lossless.baseline expects one of the config names (${names.join(', ')}); found "${named}".`,
    );
  }
  return matrixLossless(plan)?.baseline ?? null;
}

/** Asks the config's server the prompts and stores its answers; returns a line for the log. */
export async function collectConfigAnswers(opts: {
  plan: Plan;
  url: string;
  verifiedTarget: VerifiedTarget;
  configDir: string;
  signal: AbortSignal;
}): Promise<string> {
  const { plan, verifiedTarget: vt } = opts;
  const settings = losslessSettings(plan);
  const answers = await collectLosslessAnswers({
    http: createTargetHttp(opts.url, { headers: targetHeaders(plan) }),
    adapter: getAdapter(vt.engine),
    api: plan.target.api,
    model: vt.model ?? plan.target.model ?? 'default',
    settings,
    signal: opts.signal,
  });
  writeLosslessAnswers(opts.configDir, answers);
  const unread = answers.answers.filter((a) => a.error).length;
  const unit = answers.answers.every((a) => a.ids !== null) ? 'token ids' : 'text';
  const withLogprobs = answers.answers.filter((a) => a.logprobs).length;
  const lps = withLogprobs ? `top-2 logprobs on ${withLogprobs}` : 'no logprobs returned';
  return `lossless: ${answers.answers.length - unread} of ${answers.answers.length} greedy answers read (${unit}, ${lps}, max_tokens ${settings.maxTokens})${unread ? `; ${unread} unread: ${answers.answers.find((a) => a.error)?.error}` : ''}`;
}

export interface LosslessJudgement {
  /** Lines for the terminal: each config's verdict, early divergences with both continuations. */
  lines: string[];
  /** Configs a required check makes invalid, with the reason and evidence lines. */
  invalid: { name: string; reason: string; evidence: string[] }[];
}

/** Compares every config that ran with the baseline and writes each one's lossless.json. */
export async function judgeMatrixLossless(opts: {
  plan: Plan;
  baseline: string;
  /** The baseline config's directory (read even when the baseline did not run this time, e.g. --only). */
  baselineDir: string;
  /** The configs that ran: each gets its lossless.json. */
  configs: { name: string; dir: string }[];
}): Promise<LosslessJudgement> {
  const chosen = matrixLossless(opts.plan);
  if (!chosen) throw new BenchgateError('BG_E_INTERNAL', 'the lossless check was judged without being run.');
  const l = chosen.spec;
  const baseAnswers = await readLosslessAnswers(opts.baselineDir);
  const lines: string[] = [`lossless: greedy answers compared with ${opts.baseline} (${chosen.why})`];
  const invalid: LosslessJudgement['invalid'] = [];
  for (const c of opts.configs) {
    const record: LosslessRecord = {
      schema: 'benchgate.lossless/1',
      config: c.name,
      baseline: opts.baseline,
      isBaseline: c.name === opts.baseline,
      required: l.required,
      valid: true,
      reason: null,
      comparison: null,
    };
    if (!record.isBaseline) {
      const answers = await readLosslessAnswers(c.dir);
      const cmp: LosslessComparison = compareLossless({
        baseline: {
          name: opts.baseline,
          answers: baseAnswers ?? {
            schema: 'benchgate.lossless-answers/1',
            maxTokens: 0,
            seed: 0,
            answers: [],
          },
        },
        candidate: {
          name: c.name,
          answers: answers ?? { schema: 'benchgate.lossless-answers/1', maxTokens: 0, seed: 0, answers: [] },
        },
        lateShare: l.late_share,
        nearTieNats: l.near_tie_nats,
      });
      if (!baseAnswers) cmp.summary = `unknown: the baseline ${opts.baseline} has no lossless answers`;
      else if (!answers) cmp.summary = `unknown: ${c.name} has no lossless answers`;
      const v = losslessValidity(cmp, l.required);
      record.comparison = cmp;
      record.valid = v.valid;
      record.reason = v.reason;
      const shown = losslessLines(cmp);
      lines.push(...shown);
      if (!v.valid)
        invalid.push({
          name: c.name,
          reason: v.reason ?? VERDICT_WORDS[cmp.verdict],
          evidence: shown.slice(1),
        });
    } else {
      lines.push(`lossless ${c.name}: the baseline${baseAnswers ? '' : ' (no answers recorded)'}`);
    }
    writeLosslessRecord(c.dir, record);
  }
  return { lines, invalid };
}
