// The lossless verdict, pure: greedy answers of one configuration against a baseline's (or a recorded
// reference), per prompt the common prefix and the first diverging position, then "identical",
// "diverges late" (at or after a share of the answer: numerics of batched kernels) or "diverges early"
// (a failure), with the prompt and both continuations around the divergence. An answer that could not
// be read makes the prompt "unknown": nothing passes on an unread answer. Where the baseline answer
// carries logprobs, its top-1/top-2 margin at the first divergent token says numerics or bug
// (lossless-margin.ts).

import { divergenceMargin, marginClause, marginWords } from './lossless-margin.js';

/** One output position's log-probabilities, when the engine returned them. */
export interface PositionLogprobs {
  /** The emitted token's text (OpenAI APIs), null when only ids came back (SGLang native). */
  token: string | null;
  /** Log-probabilities (nats) of the two most likely tokens here; top2 null when only one came back. */
  top1: number;
  top2: number | null;
}

/** One greedy answer: token ids when the server returned them, always the text. */
export interface LosslessAnswer {
  prompt: string;
  ids: number[] | null;
  text: string;
  /** Per output token, the top-2 log-probabilities; null or absent when the engine returned none. */
  logprobs?: PositionLogprobs[] | null;
  /** Why no answer was read (transport, HTTP status, unreadable body); null when it was. */
  error: string | null;
}

/** The answers of one server to the check's prompts; also the reference file's format. */
export interface LosslessAnswers {
  schema: 'benchgate.lossless-answers/1';
  maxTokens: number;
  seed: number;
  answers: LosslessAnswer[];
}

export type LosslessVerdict = 'identical' | 'diverges-late' | 'diverges-early' | 'unknown';

export interface PromptComparison {
  index: number;
  prompt: string;
  /** What positions count: token ids when both answers carry them, else characters of the text. */
  unit: 'tokens' | 'characters';
  baselineLength: number;
  candidateLength: number;
  commonPrefix: number;
  /** First position where the answers differ; null when identical. */
  divergeAt: number | null;
  verdict: LosslessVerdict;
  /** Text around the divergence: the shared text just before it, then each answer's continuation. */
  excerpt: { before: string; baseline: string; candidate: string } | null;
  /**
   * The baseline's top-1 minus top-2 log-probability (nats) at the first divergent token, and whether
   * that is a near-tie (numerics) or a wide margin (a bug); null when the baseline has no logprobs there.
   */
  margin?: { nats: number; nearTie: boolean } | null;
  error?: string;
}

export interface LosslessComparison {
  baseline: string;
  candidate: string;
  lateShare: number;
  /** Margins below this many nats are near-ties (absent in records before margins were read). */
  nearTieNats?: number;
  verdict: LosslessVerdict;
  prompts: PromptComparison[];
  /** One sentence, e.g. "diverges early on 2 of 16 prompts (first at token 5 of 64)". */
  summary: string;
}

/** The verdict document of one config (its run directory's lossless.json). */
export interface LosslessRecord {
  schema: 'benchgate.lossless/1';
  config: string;
  baseline: string;
  /** True for the baseline itself: nothing to compare. */
  isBaseline: boolean;
  required: boolean;
  /** False when a required check found an early divergence or could not judge. */
  valid: boolean;
  reason: string | null;
  comparison: LosslessComparison | null;
}

const CONTEXT_CHARS = 60;
const CONTINUATION_CHARS = 100;

function commonPrefixLength<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function excerptAt(baseline: string, candidate: string): PromptComparison['excerpt'] {
  // back to the start of the word the texts diverge in, so both continuations start with whole words
  let at = commonPrefixLength(baseline, candidate);
  while (at > 0 && !/\s/.test(baseline[at - 1])) at--;
  return {
    before: baseline.slice(Math.max(0, at - CONTEXT_CHARS), at),
    baseline: baseline.slice(at, at + CONTINUATION_CHARS),
    candidate: candidate.slice(at, at + CONTINUATION_CHARS),
  };
}

function comparePrompt(
  index: number,
  b: LosslessAnswer,
  c: LosslessAnswer | undefined,
  o: { lateShare: number; nearTieNats: number },
): PromptComparison {
  const unknown = (error: string): PromptComparison => ({
    index,
    prompt: b.prompt,
    unit: 'tokens',
    baselineLength: 0,
    candidateLength: 0,
    commonPrefix: 0,
    divergeAt: null,
    verdict: 'unknown',
    excerpt: null,
    error,
  });
  if (b.error) return unknown(`baseline answer unread: ${b.error}`);
  if (!c) return unknown('no answer to this prompt');
  if (c.error) return unknown(`answer unread: ${c.error}`);
  if (c.prompt !== b.prompt) return unknown('the prompts differ (different prompt set or seed)');
  const byIds = b.ids !== null && c.ids !== null;
  const bs: ArrayLike<number | string> = byIds ? (b.ids as number[]) : b.text;
  const cs: ArrayLike<number | string> = byIds ? (c.ids as number[]) : c.text;
  const common = commonPrefixLength(bs, cs);
  const identical = common === bs.length && common === cs.length;
  const divergeAt = identical ? null : common;
  const late = divergeAt !== null && divergeAt >= o.lateShare * bs.length;
  const unit = byIds ? 'tokens' : 'characters';
  return {
    index,
    prompt: b.prompt,
    unit,
    baselineLength: bs.length,
    candidateLength: cs.length,
    commonPrefix: common,
    divergeAt,
    verdict: identical ? 'identical' : late ? 'diverges-late' : 'diverges-early',
    excerpt: identical ? null : excerptAt(b.text, c.text),
    margin: divergeAt === null ? null : divergenceMargin(b, divergeAt, unit, o.nearTieNats),
  };
}

const SEVERITY: Record<LosslessVerdict, number> = {
  identical: 0,
  'diverges-late': 1,
  unknown: 2,
  'diverges-early': 3,
};

export const VERDICT_WORDS: Record<LosslessVerdict, string> = {
  identical: 'identical',
  'diverges-late': 'diverges late',
  'diverges-early': 'diverges early',
  unknown: 'unknown',
};

function summarise(verdict: LosslessVerdict, prompts: PromptComparison[]): string {
  const n = prompts.length;
  if (n === 0) return 'unknown: no answers to compare';
  const hit = prompts.filter((p) => p.verdict === verdict);
  if (verdict === 'identical') return `identical on ${n} of ${n} prompts`;
  if (verdict === 'unknown') return `unknown on ${hit.length} of ${n} prompts (${hit[0].error})`;
  const first = hit.reduce((a, p) => ((p.divergeAt ?? 0) < (a.divergeAt ?? 0) ? p : a));
  const unit = first.unit === 'tokens' ? 'token' : 'character';
  return `${VERDICT_WORDS[verdict]} on ${hit.length} of ${n} prompts (earliest at ${unit} ${first.divergeAt} of ${first.baselineLength}, prompt ${first.index + 1})`;
}

/** Compares a candidate's answers with the baseline's, prompt by prompt. */
export function compareLossless(opts: {
  baseline: { name: string; answers: LosslessAnswers };
  candidate: { name: string; answers: LosslessAnswers };
  lateShare: number;
  /** Below this baseline top-1/top-2 margin (nats) a divergence is a near-tie; default 0.25. */
  nearTieNats?: number;
}): LosslessComparison {
  const b = opts.baseline.answers.answers;
  const c = opts.candidate.answers.answers;
  const nearTieNats = opts.nearTieNats ?? 0.25;
  const prompts = b.map((a, i) => comparePrompt(i, a, c[i], { lateShare: opts.lateShare, nearTieNats }));
  const verdict =
    prompts.length === 0
      ? 'unknown'
      : prompts.reduce<LosslessVerdict>(
          (w, p) => (SEVERITY[p.verdict] > SEVERITY[w] ? p.verdict : w),
          'identical',
        );
  const divergent = verdict === 'diverges-early' || verdict === 'diverges-late';
  return {
    baseline: opts.baseline.name,
    candidate: opts.candidate.name,
    lateShare: opts.lateShare,
    nearTieNats,
    verdict,
    prompts,
    summary: summarise(verdict, prompts) + (divergent ? marginClause(prompts, nearTieNats) : ''),
  };
}

/** Whether the verdict leaves the config valid: only a required check can invalidate it. */
export function losslessValidity(
  cmp: LosslessComparison,
  required: boolean,
): { valid: boolean; reason: string | null } {
  const bad = cmp.verdict === 'diverges-early' || cmp.verdict === 'unknown';
  if (!bad) return { valid: true, reason: null };
  const reason = `lossless check against ${cmp.baseline}: ${cmp.summary}`;
  return { valid: !required, reason };
}

/** Plain-text lines for a comparison: the verdict, then each early divergence with the prompt and both continuations. */
export function losslessLines(cmp: LosslessComparison): string[] {
  const lines = [`lossless ${cmp.candidate} vs ${cmp.baseline}: ${cmp.summary}`];
  for (const p of cmp.prompts) {
    if (p.verdict !== 'diverges-early' || !p.excerpt) continue;
    const unit = p.unit === 'tokens' ? 'token' : 'character';
    const why = p.margin ? ` (${marginWords(p.margin)})` : '';
    lines.push(
      `  prompt ${p.index + 1} diverges at ${unit} ${p.divergeAt} of ${p.baselineLength}${why}: ${JSON.stringify(clip(p.prompt, 120))}`,
    );
    lines.push(`    ${pad('(shared)')} ${JSON.stringify(`…${p.excerpt.before}`)}`);
    lines.push(`    ${pad(cmp.baseline)} ${JSON.stringify(p.excerpt.baseline)}`);
    lines.push(`    ${pad(cmp.candidate)} ${JSON.stringify(p.excerpt.candidate)}`);
  }
  return lines;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const pad = (name: string) => `${name}:`.padEnd(11);
