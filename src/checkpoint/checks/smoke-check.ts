// Judges the smoke generation: the request succeeded, tokens streamed, usage arrived, the output
// length is as requested, and (when speculative decoding is expected) acceptance length is above 1.

import type { ConfigFacts } from '../../engines/types.js';
import { type CheckContext, finding } from '../context.js';
import type { Finding } from '../finding.js';
import { acceptanceLength, sendSmoke, smokeParams } from '../smoke.js';

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

export async function checkSmoke(ctx: CheckContext, facts: ConfigFacts): Promise<Finding[]> {
  if (!ctx.adapter || !ctx.model) {
    return [finding('smoke', 'Smoke generation', 'skip', { found: 'no engine or model identified' })];
  }
  const spec = expectsSpeculative(ctx.plan.expect.config, facts);
  const t = ctx.plan.target.timeouts;
  const r = await sendSmoke({
    http: ctx.http,
    adapter: ctx.adapter,
    params: smokeParams(ctx.plan, ctx.model),
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
  const rec = r.record;
  const where = `POST ${ctx.url}${r.path}`;
  const described = `${r.params.api} api, model ${r.params.model}, max_tokens ${r.params.maxTokens}, ignore_eos ${r.params.ignoreEos}, temperature ${r.params.temperature}, stream`;
  const out: Finding[] = [];
  const tokens = rec.outputTokensServer ?? rec.outputTokensClient ?? 0;
  const evidence = [
    {
      source: 'endpoint' as const,
      where,
      excerpt: `HTTP ${rec.httpStatus ?? 'none'}, ${rec.chunkMs.length} token chunk(s), usage ${rec.outputTokensServer ?? 'absent'}, finish ${rec.finishReason ?? 'none'}${rec.error ? `, ${rec.error.code}: ${rec.error.message}` : ''}`,
    },
  ];
  if (rec.error) {
    out.push(
      finding('smoke', 'Smoke generation', 'fail', {
        expected: `a streamed completion (${described})`,
        found: `${rec.error.code}: ${rec.error.message} after ${rec.chunkMs.length} token chunk(s)`,
        evidence,
        hint: 'The server failed on a real request; read its log before benchmarking.',
      }),
    );
    return out;
  }
  const problems: string[] = [];
  if (rec.chunkMs.length === 0) problems.push('no token-carrying chunk arrived');
  if (rec.outputTokensServer === null) problems.push('the server reported no usage (output token count)');
  if (r.params.ignoreEos && tokens !== r.params.maxTokens)
    problems.push(`${tokens} output tokens, not the ${r.params.maxTokens} requested`);
  if (!r.params.ignoreEos && tokens > r.params.maxTokens)
    problems.push(`${tokens} output tokens, more than max_tokens ${r.params.maxTokens}`);
  out.push(
    finding('smoke', 'Smoke generation', problems.length === 0 ? 'pass' : 'fail', {
      expected: `a streamed completion (${described})`,
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
  );
  if (spec) {
    const acc = acceptanceLength(r);
    out.push(
      finding(
        'smoke.acceptance',
        'Speculative drafts are accepted',
        acc === null ? 'fail' : acc.value > 1 ? 'pass' : 'fail',
        {
          expected: 'acceptance length > 1',
          found:
            acc === null
              ? 'unknown: neither meta_info.spec_verify_ct nor /metrics counters were available'
              : acc.value.toFixed(2),
          evidence: acc ? [{ source: 'endpoint', where: acc.source, excerpt: acc.value.toFixed(3) }] : [],
          hint:
            acc && acc.value <= 1
              ? 'Drafts are never accepted: check the draft model and speculative settings.'
              : undefined,
        },
      ),
    );
  }
  return out;
}
