// Why greedy answers diverged, from the baseline's log-probabilities: at the first divergent token, the
// margin between the baseline's two most likely tokens (top-1 minus top-2 log-probability, in nats).
// A near-tie (a margin below `near_tie_nats`) flips on the last bits of a kernel's arithmetic, so a
// divergence there is numerics; a wide margin cannot flip that way, so a divergence there is a bug
// (a draft path emitting tokens the target model would not). Pure: lossless.ts calls it.

import type { LosslessAnswer, PositionLogprobs, PromptComparison } from './lossless.js';

/** The output token holding character `charAt` of `text`, when the tokens spell the text; else null. */
function tokenAtChar(lps: readonly PositionLogprobs[], text: string, charAt: number): number | null {
  let pos = 0;
  for (let i = 0; i < lps.length; i++) {
    const t = lps[i].token;
    if (t === null || text.slice(pos, pos + t.length) !== t) return null;
    pos += t.length;
    if (pos > charAt) return i;
  }
  return null;
}

/** The baseline's margin at the first divergence (token position, or character when compared as text). */
export function divergenceMargin(
  baseline: LosslessAnswer,
  divergeAt: number,
  unit: 'tokens' | 'characters',
  nearTieNats: number,
): { nats: number; nearTie: boolean } | null {
  const lps = baseline.logprobs;
  if (!lps || lps.length === 0) return null;
  const at = unit === 'tokens' ? divergeAt : tokenAtChar(lps, baseline.text, divergeAt);
  const p = at === null ? undefined : lps[at];
  if (!p || p.top2 === null || !Number.isFinite(p.top1) || !Number.isFinite(p.top2)) return null;
  const nats = p.top1 - p.top2;
  return { nats, nearTie: nats < nearTieNats };
}

const nats = (v: number) => `${v.toFixed(v < 0.1 ? 3 : 2)} nats`;

/** "baseline top-1/top-2 margin 2.31 nats: wide, a bug rather than numerics". */
export function marginWords(m: { nats: number; nearTie: boolean }): string {
  return `baseline top-1/top-2 margin ${nats(m.nats)}: ${m.nearTie ? 'a near-tie, numerics' : 'wide, a bug rather than numerics'}`;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The clause the verdict sentence ends with: how the divergent prompts' margins read (empty when none diverged). */
export function marginClause(prompts: readonly PromptComparison[], nearTieNats: number): string {
  const diverged = prompts.filter((p) => p.divergeAt !== null);
  if (diverged.length === 0) return '';
  const known = diverged.filter((p) => p.margin);
  if (known.length === 0)
    return '; the baseline returned no logprobs there, so whether a near-tie (numerics) or a bug is unknown';
  const wide = known.filter((p) => !p.margin?.nearTie).map((p) => p.margin?.nats as number);
  const tie = known.filter((p) => p.margin?.nearTie).map((p) => p.margin?.nats as number);
  const parts = [
    wide.length
      ? `wide on ${wide.length} (median ${nats(median(wide))}, ≥ ${nearTieNats}: a bug, not numerics)`
      : null,
    tie.length
      ? `a near-tie on ${tie.length} (median ${nats(median(tie))}, < ${nearTieNats}: numerics)`
      : null,
    known.length < diverged.length ? `unknown on ${diverged.length - known.length} (no logprobs)` : null,
  ].filter(Boolean);
  return `; the baseline's top-1/top-2 margin at the first divergent token is ${parts.join(', ')}`;
}
