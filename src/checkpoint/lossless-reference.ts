// Lossless check against one server: a reference file records a server's greedy answers (prompts,
// token ids or text, max tokens); `benchgate check` re-asks the same prompts and compares, so a user
// can re-verify a server after changing its speculative settings without a baseline server running.

import { readFile, writeFile } from 'node:fs/promises';
import { BenchgateError } from '../core/errors.js';
import type { EngineAdapter, TargetHttp } from '../engines/types.js';
import { compareLossless, type LosslessAnswers, losslessLines, VERDICT_WORDS } from '../metrics/lossless.js';
import type { Plan } from '../plan/schema.js';
import { type CheckContext, finding } from './context.js';
import type { Finding } from './finding.js';
import { collectLosslessAnswers, losslessSettings } from './lossless.js';

const EXPECTED = 'a benchgate lossless reference (written by `benchgate check PLAN --record-reference FILE`)';

function refError(file: string, found: string): BenchgateError {
  return new BenchgateError('BG_E_REFERENCE', `Expected ${EXPECTED} in ${file}; ${found}.`);
}

/** Reads and checks a reference file; a clear error naming the file when it is not one. */
export async function readReference(file: string): Promise<LosslessAnswers> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw refError(
      file,
      `it could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw refError(file, 'it is not JSON');
  }
  const d = doc as Partial<LosslessAnswers>;
  if (d?.schema !== 'benchgate.lossless-answers/1')
    throw refError(file, 'its "schema" is not benchgate.lossless-answers/1');
  if (!Number.isInteger(d.maxTokens) || !Array.isArray(d.answers) || d.answers.length === 0)
    throw refError(file, 'it lacks maxTokens or a non-empty answers list');
  const bad = d.answers.findIndex((a) => typeof a?.prompt !== 'string' || typeof a?.text !== 'string');
  if (bad >= 0) throw refError(file, `answer ${bad + 1} lacks a prompt or text`);
  const unread = d.answers.findIndex((a) => a.error);
  if (unread >= 0)
    throw refError(
      file,
      `answer ${unread + 1} was not read when it was recorded (${d.answers[unread].error})`,
    );
  return d as LosslessAnswers;
}

/** Asks the server the built-in prompts and writes its answers as a reference file. */
export async function recordReference(opts: {
  plan: Plan;
  http: TargetHttp;
  adapter: EngineAdapter;
  model: string;
  file: string;
  signal?: AbortSignal;
}): Promise<LosslessAnswers> {
  const answers = await collectLosslessAnswers({
    http: opts.http,
    adapter: opts.adapter,
    api: opts.plan.target.api,
    model: opts.model,
    settings: losslessSettings(opts.plan),
    signal: opts.signal,
  });
  const unread = answers.answers.find((a) => a.error);
  if (unread)
    throw new BenchgateError(
      'BG_E_REFERENCE',
      `Could not record ${opts.file}: an answer was not read (${unread.error}).`,
    );
  try {
    await writeFile(opts.file, `${JSON.stringify(answers, null, 2)}\n`);
  } catch (e) {
    throw new BenchgateError('BG_E_REFERENCE', `Could not write ${opts.file}: ${(e as Error).message}.`);
  }
  return answers;
}

/** The checkpoint finding: the server's greedy answers against the plan's reference file. */
export async function checkLosslessReference(ctx: CheckContext, file: string): Promise<Finding[]> {
  const id = 'lossless.reference';
  const title = 'Greedy answers match the reference';
  const required = ctx.plan.lossless?.required ?? false;
  if (!ctx.adapter || !ctx.model) {
    return [
      finding(id, title, required ? 'fail' : 'skip', { required, found: 'no engine or model identified' }),
    ];
  }
  const reference = await readReference(file);
  const answers = await collectLosslessAnswers({
    http: ctx.http,
    adapter: ctx.adapter,
    api: ctx.plan.target.api,
    model: ctx.model,
    settings: { prompts: reference.answers.length, seed: reference.seed, maxTokens: reference.maxTokens },
    prompts: reference.answers.map((a) => a.prompt),
    signal: ctx.signal,
  });
  const cmp = compareLossless({
    baseline: { name: 'reference', answers: reference },
    candidate: { name: 'server', answers },
    lateShare: ctx.plan.lossless?.late_share ?? 0.5,
    nearTieNats: ctx.plan.lossless?.near_tie_nats,
  });
  const status =
    cmp.verdict === 'identical'
      ? 'pass'
      : cmp.verdict === 'diverges-late'
        ? 'warn'
        : required
          ? 'fail'
          : 'warn';
  return [
    finding(id, title, status, {
      required,
      expected: `identical greedy answers to the ${reference.answers.length} prompts of ${file} (max_tokens ${reference.maxTokens})`,
      found: `${VERDICT_WORDS[cmp.verdict]}: ${cmp.summary}`,
      evidence: [{ source: 'file', where: file, excerpt: losslessLines(cmp).join('\n').slice(0, 1500) }],
      hint:
        status === 'pass'
          ? undefined
          : 'Greedy output changed: check the draft model, speculative settings and kernels against the reference.',
    }),
  ];
}

/**
 * The checkpoint's lossless findings: the comparison with the plan's reference file (when it names
 * one), and the recording of a new reference (when asked). Errors become failed findings.
 */
export async function losslessFindings(ctx: CheckContext, recordTo: string | undefined): Promise<Finding[]> {
  const out: Finding[] = [];
  const reference = ctx.plan.lossless?.enabled === false ? undefined : ctx.plan.lossless?.reference;
  const guard = async (id: string, title: string, fn: () => Promise<Finding[]>) => {
    try {
      out.push(...(await fn()));
    } catch (e) {
      out.push(finding(id, title, 'fail', { found: (e as Error).message }));
    }
  };
  if (reference)
    await guard('lossless.reference', 'Greedy answers match the reference', () =>
      checkLosslessReference(ctx, reference),
    );
  if (recordTo) {
    await guard('lossless.record', 'Lossless reference recorded', async () => {
      if (!ctx.healthy || !ctx.adapter || !ctx.model)
        throw new Error('the server is not healthy or its engine and model are unknown');
      const answers = await recordReference({
        plan: ctx.plan,
        http: ctx.http,
        adapter: ctx.adapter,
        model: ctx.model,
        file: recordTo,
        signal: ctx.signal,
      });
      const withIds = answers.answers.every((a) => a.ids !== null);
      return [
        finding('lossless.record', 'Lossless reference recorded', 'pass', {
          found: `${answers.answers.length} greedy answers (max_tokens ${answers.maxTokens}, ${withIds ? 'token ids' : 'text'}) written to ${recordTo}`,
          evidence: [{ source: 'file', where: recordTo, excerpt: answers.answers[0].text.slice(0, 200) }],
        }),
      ];
    });
  }
  return out;
}
