// Judges the smoke generation: the request succeeded, tokens streamed, usage arrived, the output
// length is as requested, and (when speculative decoding is expected) acceptance length is above 1.
// A speculative server that stops a token or a draft past max_tokens (33 for 32, finish_reason length)
// is a warning naming it, not a blocked run: the run counts the tokens the server reports.

import type { ConfigFacts, EngineAdapter } from '../../engines/types.js';
import { type CheckContext, finding } from '../context.js';
import type { Evidence, Finding } from '../finding.js';
import { type SmokeResult, sendSmoke, smokeParams } from '../smoke.js';
import { acceptanceFinding } from './smoke-acceptance.js';

const isOff = (v: unknown) =>
  v === undefined || v === null || v === false || (typeof v === 'string' && /^(none|null|)$/i.test(v));

/**
 * True when speculative decoding is expected: the plan sets an expectation on a speculative.* key
 * (other than algorithm none/absent), or the server's facts say an algorithm is configured.
 */
export function expectsSpeculative(config: Record<string, unknown>, facts: ConfigFacts): boolean {
  const e = config['speculative.algorithm'];
  if (e !== undefined) {
    if (e === null || isOff(e)) return false;
    if (
      typeof e === 'object' &&
      ('absent' in e || ('equals' in e && isOff((e as { equals: unknown }).equals)))
    )
      return false;
    return true;
  }
  if (Object.keys(config).some((k) => k.startsWith('speculative.') && k !== 'speculative.spec_v2'))
    return true;
  return !isOff(facts['speculative.algorithm']?.value);
}

/** What the output length says: nothing wrong, a warning (a small, explained miss) or a problem that blocks. */
export interface LengthVerdict {
  problem?: string;
  warning?: string;
}

/**
 * Tokens a speculative step may run past max_tokens: the drafted tokens per step (the accepted draft is
 * kept whole by some builds), at least one. Non-speculative servers get the one-token allowance too
 * (finish_reason length, an off-by-one count of the final token).
 */
export function overshootAllowance(facts: ConfigFacts, speculative: boolean): number {
  if (!speculative) return 1;
  const steps = facts['speculative.num_steps']?.value ?? facts['speculative.num_draft_tokens']?.value;
  return typeof steps === 'number' && steps > 1 ? steps : 1;
}

/** Judges the output token count against max_tokens (and ignore_eos) with the given allowance. */
export function judgeOutputLength(
  tokens: number,
  params: { maxTokens: number; ignoreEos: boolean },
  finishReason: string | null,
  allowance: number,
): LengthVerdict {
  const diff = tokens - params.maxTokens;
  if (diff === 0 || (!params.ignoreEos && diff < 0)) return {};
  const byLength = finishReason === 'length';
  if (diff > 0 && diff <= allowance && byLength)
    return {
      warning: `${tokens} output tokens for max_tokens ${params.maxTokens} (finish_reason length): ${diff} token(s) past the limit, as speculative builds do when a verify step accepts drafts beyond it; the run counts the tokens the server reports`,
    };
  if (diff === -1 && byLength)
    return {
      warning: `${tokens} output tokens for max_tokens ${params.maxTokens} (finish_reason length): one short, the server's count of the final token; the run counts the tokens the server reports`,
    };
  return {
    problem:
      diff > 0
        ? `${tokens} output tokens, ${diff} more than max_tokens ${params.maxTokens} (finish_reason ${finishReason ?? 'none'})`
        : `${tokens} output tokens, not the ${params.maxTokens} requested (finish_reason ${finishReason ?? 'none'})`,
  };
}

/** Sends the smoke request with the run's parameters (and counters around it when speculation is expected). */
function runSmoke(
  ctx: CheckContext,
  adapter: EngineAdapter,
  model: string,
  spec: boolean,
): Promise<SmokeResult> {
  const t = ctx.plan.target.timeouts;
  return sendSmoke({
    http: ctx.http,
    adapter,
    params: smokeParams(ctx.plan, model),
    headers: ctx.headers,
    timeoutS: {
      connect: t.connect_s,
      ttft: Math.min(t.ttft_s, 120),
      stall: Math.min(t.stall_s, 60),
      total: Math.min(t.total_s, 300),
    },
    withCounters: spec,
    signal: ctx.signal,
  });
}

/** What went wrong with a smoke request that completed: no tokens, no usage, a length far from the request. */
function smokeProblems(
  r: SmokeResult,
  facts: ConfigFacts,
  spec: boolean,
): { problems: string[]; length: LengthVerdict } {
  const rec = r.record;
  const problems: string[] = [];
  if (rec.chunkMs.length === 0) problems.push('no token-carrying chunk arrived');
  if (rec.outputTokensServer === null) problems.push('the server reported no usage (output token count)');
  const tokens = rec.outputTokensServer ?? rec.outputTokensClient ?? 0;
  const speculated = spec || (rec.specVerifySteps ?? 0) > 0;
  const length = judgeOutputLength(tokens, r.params, rec.finishReason, overshootAllowance(facts, speculated));
  if (length.problem) problems.push(length.problem);
  return { problems, length };
}

export async function checkSmoke(ctx: CheckContext, facts: ConfigFacts): Promise<Finding[]> {
  if (!ctx.adapter || !ctx.model) {
    return [finding('smoke', 'Smoke generation', 'skip', { found: 'no engine or model identified' })];
  }
  const spec = expectsSpeculative(ctx.plan.expect.config, facts);
  const r = await runSmoke(ctx, ctx.adapter, ctx.model, spec);
  const rec = r.record;
  const expected = `a streamed completion (${r.params.api} api, model ${r.params.model}, max_tokens ${r.params.maxTokens}, ignore_eos ${r.params.ignoreEos}, temperature ${r.params.temperature}, stream)`;
  const evidence: Evidence[] = [
    {
      source: 'endpoint',
      where: `POST ${ctx.url}${r.path}`,
      excerpt: `HTTP ${rec.httpStatus ?? 'none'}, ${rec.chunkMs.length} token chunk(s), usage ${rec.outputTokensServer ?? 'absent'}, finish ${rec.finishReason ?? 'none'}${rec.error ? `, ${rec.error.code}: ${rec.error.message}` : ''}`,
    },
  ];
  if (rec.error)
    return [
      finding('smoke', 'Smoke generation', 'fail', {
        expected,
        found: `${rec.error.code}: ${rec.error.message} after ${rec.chunkMs.length} token chunk(s)`,
        evidence,
        hint: 'The server failed on a real request; read its log before benchmarking.',
      }),
    ];
  const { problems, length } = smokeProblems(r, facts, spec);
  const tokens = rec.outputTokensServer ?? rec.outputTokensClient ?? 0;
  const out = [
    finding('smoke', 'Smoke generation', problems.length === 0 ? 'pass' : 'fail', {
      expected,
      found:
        problems.length === 0
          ? `${tokens} tokens in ${rec.chunkMs.length} chunk(s), usage reported`
          : problems.join('; '),
      evidence,
      hint:
        problems.length === 0
          ? undefined
          : 'Benchmark numbers would be wrong with this server/API combination.',
    }),
  ];
  if (length.warning && problems.length === 0)
    out.push(
      finding('smoke.length', 'Smoke output length', 'warn', {
        required: false,
        expected: `${r.params.maxTokens} output tokens${r.params.ignoreEos ? '' : ' at most'}`,
        found: length.warning,
        evidence,
      }),
    );
  if (spec || (rec.specVerifySteps ?? 0) > 0) out.push(await acceptanceFinding(ctx, r, spec, facts));
  return out;
}
