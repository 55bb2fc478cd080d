// Log-probabilities for the simulated model's answers, as the engines return them when asked (SGLang
// native `return_logprob` / `top_logprobs_num`, OpenAI completions `logprobs: N`, chat `logprobs: true`
// with `top_logprobs: N`), on non-streamed answers. Believable, not uniform: at each position the model's
// greedy token has probability 0.30–0.99 (mostly high, as a confident LLM's), the runner-up takes a share
// of the rest, so most top-1/top-2 margins are several nats and a few are near-ties. A token the model
// would not choose (the spec-diverge fault's corrupted draft tokens) gets a low log-probability while the
// top list still shows the model's own choices, as a target model scoring a wrongly accepted draft would.
// Pure functions of the prompt key and the position, so every configuration reports the same values.

import { greedyTokenId } from './greedy-tokens.js';
import { VOCAB_SIZE, wordForId } from './tokenizer.js';

/** How many top tokens a request body asks logprobs for (0: only the emitted token's); null: none asked. */
export function logprobAsk(
  api: 'native' | 'completions' | 'chat',
  body: Record<string, unknown>,
): number | null {
  const count = (v: unknown) => Math.max(0, Math.min(20, Math.floor(Number(v) || 0)));
  if (api === 'native') return body.return_logprob === true ? count(body.top_logprobs_num) : null;
  if (api === 'chat') return body.logprobs === true ? count(body.top_logprobs) : null;
  return typeof body.logprobs === 'number' ? count(body.logprobs) : null;
}

function unit(a: number, b: number): number {
  let t = (a ^ Math.imul(b + 0x632be5ab, 0x9e3779b1)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), 0x2c1b3c6d) >>> 0;
  t = Math.imul(t ^ (t >>> 12), 0x297a2d39) >>> 0;
  return ((t ^ (t >>> 15)) >>> 0) / 2 ** 32;
}

interface Ranked {
  id: number;
  logprob: number;
}

/** The model's top `n` (at least 2) tokens at `pos`, most likely first. */
function ranked(key: number, pos: number, top: number, n: number): Ranked[] {
  const p1 = 0.3 + 0.69 * Math.sqrt(unit(key, pos));
  const p2 = Math.min(p1 * 0.999, (1 - p1) * (0.3 + 0.65 * unit(key ^ 0x51ed270b, pos)));
  const out: Ranked[] = [{ id: top, logprob: Math.log(p1) }];
  let rest = 1 - p1 - p2;
  let p = p2;
  for (let i = 1; i < n; i++) {
    const id = (top + 1 + Math.floor(unit(key ^ (0x2545f491 * i), pos) * (VOCAB_SIZE - 1))) % VOCAB_SIZE;
    out.push({ id, logprob: Math.log(p) });
    p = Math.min(p, rest * 0.6);
    rest -= p;
  }
  return out;
}

export interface TokenLogprobs {
  id: number;
  logprob: number;
  top: Ranked[];
}

/**
 * Per emitted token: its log-probability and the top `n`. Greedy answers (`key` set) rank the prompt's
 * greedy token first; sampled ones rank the emitted token first.
 */
export function answerLogprobs(key: number | null, ids: readonly number[], n: number): TokenLogprobs[] {
  return ids.map((id, pos) => {
    const k = key ?? id;
    const top = ranked(k, pos, key === null ? id : greedyTokenId(key, pos), Math.max(2, n));
    const own = top.find((t) => t.id === id);
    // a token outside the model's top list: a draft token the target would have rejected
    const logprob = own ? own.logprob : Math.log(0.002 + 0.01 * unit(k ^ 0x7f4a7c15, pos));
    return { id, logprob, top: top.slice(0, n) };
  });
}

const word = (id: number) => ` ${wordForId(id)}`;

/** The logprobs fields of a non-streamed body, in the API's own shape. */
export function logprobFields(
  api: 'native' | 'completions' | 'chat',
  lps: readonly TokenLogprobs[],
): unknown {
  if (api === 'native') {
    return {
      output_token_logprobs: lps.map((t) => [t.logprob, t.id, null]),
      output_top_logprobs: lps.map((t) => (t.top.length ? t.top.map((r) => [r.logprob, r.id, null]) : null)),
    };
  }
  if (api === 'chat') {
    const entry = (id: number, logprob: number) => {
      const token = word(id);
      return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
    };
    return {
      content: lps.map((t) => ({
        ...entry(t.id, t.logprob),
        top_logprobs: t.top.map((r) => entry(r.id, r.logprob)),
      })),
    };
  }
  const offsets: number[] = [];
  let at = 0;
  for (const t of lps) {
    offsets.push(at);
    at += word(t.id).length;
  }
  return {
    tokens: lps.map((t) => word(t.id)),
    token_logprobs: lps.map((t) => t.logprob),
    top_logprobs: lps.map((t) => Object.fromEntries(t.top.map((r) => [word(r.id), r.logprob]))),
    text_offset: offsets,
  };
}
