// Reads the top-2 log-probabilities per output token from a non-streamed answer, in each API's shape:
//   SGLang native  meta_info.output_top_logprobs: per position a list of [logprob, token id, text|null]
//   completions    choices[0].logprobs: { tokens: [...], top_logprobs: [{ token: logprob, … }, …] }
//   chat           choices[0].logprobs.content: [{ token, logprob, top_logprobs: [{ token, logprob }] }]
// Fails closed per answer: a body without them (an engine that ignores the request) reads as null, so
// the lossless margin is unknown rather than guessed.

import type { PositionLogprobs } from '../metrics/lossless.js';
import type { Plan } from '../plan/schema.js';

/** How many most likely tokens the lossless requests ask about at each position. */
export const LOSSLESS_TOP_LOGPROBS = 2;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The two largest of `lps` (descending); null when none is a finite number. */
function topTwo(lps: unknown[]): { top1: number; top2: number | null } | null {
  const xs = lps.filter(finite).sort((a, b) => b - a);
  return xs.length ? { top1: xs[0], top2: xs[1] ?? null } : null;
}

function nativeLogprobs(json: Obj): PositionLogprobs[] | null {
  const meta = json.meta_info;
  const top = isObj(meta) ? meta.output_top_logprobs : undefined;
  if (!Array.isArray(top) || top.length === 0) return null;
  const out: PositionLogprobs[] = [];
  for (const entry of top) {
    const t = Array.isArray(entry) ? topTwo(entry.map((e) => (Array.isArray(e) ? e[0] : undefined))) : null;
    if (!t) return null;
    out.push({ token: null, ...t });
  }
  return out;
}

function completionsLogprobs(lp: Obj): PositionLogprobs[] | null {
  const { tokens, top_logprobs: top } = lp;
  if (!Array.isArray(tokens) || !Array.isArray(top) || tokens.length !== top.length || top.length === 0)
    return null;
  const out: PositionLogprobs[] = [];
  for (let i = 0; i < top.length; i++) {
    const t = isObj(top[i]) ? topTwo(Object.values(top[i] as Obj)) : null;
    if (!t || typeof tokens[i] !== 'string') return null;
    out.push({ token: tokens[i] as string, ...t });
  }
  return out;
}

function chatLogprobs(lp: Obj): PositionLogprobs[] | null {
  const content = lp.content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const out: PositionLogprobs[] = [];
  for (const c of content) {
    if (!isObj(c) || typeof c.token !== 'string' || !Array.isArray(c.top_logprobs)) return null;
    const t = topTwo(c.top_logprobs.map((x) => (isObj(x) ? x.logprob : undefined)));
    if (!t) return null;
    out.push({ token: c.token, ...t });
  }
  return out;
}

/** The answer's per-token top-2 log-probabilities, or null when the body carries none (or not in this shape). */
export function readLogprobs(api: Plan['target']['api'], json: unknown): PositionLogprobs[] | null {
  if (!isObj(json)) return null;
  if (api === 'native') return nativeLogprobs(json);
  const choice = Array.isArray(json.choices) && isObj(json.choices[0]) ? json.choices[0] : null;
  const lp = choice?.logprobs;
  if (!isObj(lp)) return null;
  return api === 'chat' ? chatLogprobs(lp) : completionsLogprobs(lp);
}
