// Whether the smoke request proved speculative drafts accepted, and from which source: the request's own
// verify steps (SGLang meta_info.spec_verify_ct, llama.cpp timings.draft_n_accepted), the /metrics
// counter deltas around it, or, when neither reports, the acceptance lines of the current start in the
// logs the plan names (re-read after the smoke, so its own lines count). Unknown says why (the adapter
// names what its build lacks) and stays a failure when speculation is expected.

import { setFact } from '../../engines/facts.js';
import type { ConfigFacts } from '../../engines/types.js';
import { type CheckContext, excerpt, finding } from '../context.js';
import type { Evidence, Finding } from '../finding.js';
import { acceptanceLength, type SmokeResult } from '../smoke.js';
import { currentStartLine } from './logs.js';

interface Acceptance {
  proven: boolean;
  found: string;
  /** What the live-evidence fact says it rests on. */
  because: string;
  evidence: Evidence;
}

/** Acceptance of the current start from the plan's logs, read again now; null when none says. */
async function fromLogs(ctx: CheckContext): Promise<Acceptance | null> {
  if (!ctx.adapter) return null;
  for (const st of ctx.logs) {
    const text = await ctx.host.readFile(st.path).catch(() => null);
    if (text === null) continue;
    const reading = ctx.adapter.readLog(text, st.path);
    const a = reading.acceptance;
    if (!a || a.lastLine < currentStartLine(reading) || a.acceptedTokens === null) continue;
    const mean =
      a.maxMeanLength !== null ? `, highest mean acceptance length ${a.maxMeanLength.toFixed(2)}` : '';
    return {
      proven: !a.neverAccepted,
      found: `${a.acceptedTokens} of ${a.draftedTokens ?? 'unknown'} drafted tokens accepted on ${a.lines} log line(s)${mean}`,
      because: `${st.path}:${a.firstLine}-${a.lastLine}: ${a.acceptedTokens} drafted tokens accepted`,
      evidence: {
        source: 'log',
        where: `${st.path}:${a.firstLine}-${a.lastLine}`,
        excerpt: excerpt(a.excerpt),
      },
    };
  }
  return null;
}

/** The acceptance finding, and the live evidence it gives: drafts accepted in our own request. */
export async function acceptanceFinding(
  ctx: CheckContext,
  r: SmokeResult,
  required: boolean,
  facts: ConfigFacts,
): Promise<Finding> {
  const acc = acceptanceLength(r, ctx.adapter?.acceptanceSources);
  const got: Acceptance | null = acc
    ? {
        proven: acc.value > 1,
        found: acc.value.toFixed(2),
        because: `${acc.source}: acceptance length ${acc.value.toFixed(2)}`,
        evidence: { source: 'endpoint', where: acc.source, excerpt: acc.value.toFixed(3) },
      }
    : await fromLogs(ctx);
  if (got?.proven) setFact(ctx.evidence, 'speculative.active', true, got.because);
  const status = got?.proven ? 'pass' : required ? 'fail' : 'warn';
  const gap = got === null ? ctx.adapter?.acceptanceGap?.(facts) : undefined;
  return finding('smoke.acceptance', 'Speculative drafts are accepted', status, {
    required,
    expected: 'acceptance length > 1',
    found:
      got?.found ??
      gap?.found ??
      'unknown: neither the smoke request (meta_info.spec_verify_ct), /metrics counters nor a log named under expect.logs gave acceptance',
    evidence: got ? [got.evidence] : [],
    hint:
      got && !got.proven
        ? 'Drafts are never accepted: check the draft model and speculative settings.'
        : gap?.hint,
  });
}
