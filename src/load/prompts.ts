// Builds the prompts of a level before it starts (no tokenizer calls while measuring): random
// prompts of exact token lengths, or prompts from ShareGPT-style JSON / JSONL files. The seed fixes
// lengths and structure; the run's salt (workload.salt, fresh per run unless set) changes the words,
// so a second run sends prompts no server has cached while its lengths stay the same.

import { readFile } from 'node:fs/promises';
import { BenchgateError } from '../core/errors.js';
import { normal, type Rng, seededRng } from '../core/seeded-random.js';
import type { TokenLength } from '../plan/schema.js';
import type { PromptTokenizer } from './tokenizer.js';

export interface PromptItem {
  prompt: string;
  /** Prompt tokens as measured by the tokenizer (approximate when the tokenizer is). */
  inputTokens: number;
  /** max_tokens to request. */
  outputTokens: number;
}

// Common English words that are single tokens in mainstream BPE vocabularies (with a leading space).
const WORDS = (
  'the of and to in is was for on that with as by at from his he it an were are which this be or has had not ' +
  'first one their its new after who they have her she two been other when there all during into school time may ' +
  'years more most only over city some world would where later up such used many can state about national out ' +
  'known university united then made also three under both him people while being we since well part these ' +
  'north south east west music team high film season year group between before family through life number'
).split(' ');

/**
 * The seed of a prompt's words: `seed` itself without a salt (0 or absent), else `seed` mixed with the
 * salt, so the same draw order (and so the same lengths) gives other words in another run.
 */
export function saltedSeed(seed: number, salt: number | undefined): number {
  if (!salt) return seed >>> 0;
  let h = Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ (salt >>> 0), 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x27d4eb2f);
  return (h ^ (h >>> 15)) >>> 0;
}

export function sampleLength(spec: TokenLength, rng: Rng): number {
  if ('fixed' in spec) return spec.fixed;
  if ('uniform' in spec) return spec.uniform[0] + Math.floor(rng() * (spec.uniform[1] - spec.uniform[0] + 1));
  return Math.max(1, Math.round(spec.normal.mean + spec.normal.std * normal(rng)));
}

function words(rng: Rng, n: number, out: string[]): void {
  while (out.length < n) out.push(WORDS[Math.floor(rng() * WORDS.length)]);
}

/** `n` random common words (about one token each under mainstream BPE vocabularies), space-separated. */
export function randomWords(rng: Rng, n: number): string {
  const out: string[] = [];
  words(rng, n, out);
  return out.join(' ');
}

/**
 * A random prompt of exactly `target` tokens under `tokenizer`: start from the learned
 * tokens-per-word ratio and rescale until close, then extend the closest prompt below the target one
 * random word at a time (multi-token words are retried with another word). Returns the closest found.
 */
export async function randomPrompt(
  target: number,
  rng: Rng,
  tokenizer: PromptTokenizer,
  ratio: { tokensPerWord: number },
): Promise<{ prompt: string; tokens: number }> {
  const pool: string[] = [];
  let n = Math.max(1, Math.round(target / ratio.tokensPerWord));
  let under = { prompt: '', tokens: 0 };
  let over = { prompt: '', tokens: Number.POSITIVE_INFINITY };
  const tried = new Set<number>();
  // Every word is at least one token under any real tokenizer, so more words than this never helps; the
  // cap keeps a tokenizer that under-counts from growing the prompt without end.
  const maxWords = target * 2 + 8;
  for (let attempt = 0; attempt < 8 && !tried.has(n); attempt++) {
    tried.add(n);
    words(rng, n, pool);
    const prompt = pool.slice(0, n).join(' ');
    const tokens = await tokenizer.count(prompt);
    if (tokens === target) return { prompt, tokens };
    if (tokens < target && tokens >= under.tokens) under = { prompt, tokens };
    if (tokens > target && tokens < over.tokens) over = { prompt, tokens };
    if (tokens > 0) ratio.tokensPerWord = tokens / n;
    const scaled = Math.min(maxWords, Math.max(1, Math.round((n * target) / Math.max(tokens, 1))));
    n =
      scaled !== n && !tried.has(scaled)
        ? scaled
        : Math.min(maxWords, Math.max(1, n + (tokens < target ? 1 : -1)));
  }
  for (let fix = 0; fix < 32 && under.tokens < target && under.prompt.split(' ').length < maxWords; fix++) {
    const prompt =
      under.prompt === ''
        ? WORDS[Math.floor(rng() * WORDS.length)]
        : `${under.prompt} ${WORDS[Math.floor(rng() * WORDS.length)]}`;
    const tokens = await tokenizer.count(prompt);
    if (tokens === target) return { prompt, tokens };
    if (tokens < target) under = { prompt, tokens };
  }
  return target - under.tokens <= over.tokens - target ? under : over;
}

interface FilePrompt {
  prompt: string;
  /** ShareGPT: the recorded reply to that first turn (the next assistant/gpt turn), when present. */
  reply?: string;
}

/**
 * Reads a ShareGPT-style JSON array (first human turn of each conversation, and the reply recorded after
 * it) or JSONL ({"prompt"|"text"} per line).
 */
export async function readPromptFile(path: string): Promise<FilePrompt[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `workload.dataset: cannot read "${path}" (${(e as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  const trimmed = text.trimStart();
  const out: FilePrompt[] = [];
  if (trimmed.startsWith('[')) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new BenchgateError(
        'BG_E_PLAN_INVALID',
        `workload.dataset: "${path}" is not valid JSON (${(e as Error).message}).`,
      );
    }
    for (const item of data as unknown[]) {
      const conv = (
        item as { conversations?: { from?: string; role?: string; value?: string; content?: string }[] }
      )?.conversations;
      const at = conv?.findIndex((t) => t.from === 'human' || t.role === 'user') ?? -1;
      const first = at >= 0 ? conv?.[at] : undefined;
      const value = first?.value ?? first?.content;
      const next = at >= 0 ? conv?.[at + 1] : undefined;
      const answer =
        next && next.from !== 'human' && next.role !== 'user' ? (next.value ?? next.content) : undefined;
      if (typeof value === 'string' && value.trim() !== '')
        out.push(
          typeof answer === 'string' && answer !== '' ? { prompt: value, reply: answer } : { prompt: value },
        );
    }
  } else {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trim();
      if (line === '') continue;
      let o: { prompt?: unknown; text?: unknown };
      try {
        o = JSON.parse(line);
      } catch {
        throw new BenchgateError(
          'BG_E_PLAN_INVALID',
          `workload.dataset: ${path}:${i + 1} is not a JSON object line.`,
        );
      }
      const p = typeof o.prompt === 'string' ? o.prompt : typeof o.text === 'string' ? o.text : null;
      if (p === null) {
        throw new BenchgateError(
          'BG_E_PLAN_INVALID',
          `workload.dataset: ${path}:${i + 1} has no "prompt" (or "text") string.`,
        );
      }
      out.push({ prompt: p });
    }
  }
  if (out.length === 0) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `workload.dataset: "${path}" holds no prompts (expected ShareGPT JSON or JSONL with "prompt").`,
    );
  }
  return out;
}

/** Tokenizer calls in flight while building prompts. */
const PROMPT_BUILD_PARALLELISM = 16;

export interface PromptSpec {
  dataset: string;
  inputTokens: TokenLength;
  outputTokens: TokenLength;
  seed: number;
  /** ShareGPT files: 'recorded' uses each conversation's reply length as max_tokens (default 'fixed'). */
  outputLengths?: 'recorded' | 'fixed';
  /** The run's salt (workload.salt): changes random prompts' words, never their lengths; 0 or absent: none. */
  salt?: number;
}

/**
 * Builds `count` prompts for one level; `levelIndex` keeps levels' prompts distinct and `spec.salt` runs'
 * (file datasets are sent as written: their text is the workload, so only the cache check can tell reuse).
 */
export async function buildPrompts(
  spec: PromptSpec,
  count: number,
  levelIndex: number,
  tokenizer: PromptTokenizer,
): Promise<PromptItem[]> {
  const rng = seededRng(spec.seed * 1_000_003 + levelIndex * 7919 + 1);
  const out: PromptItem[] = [];
  if (spec.dataset === 'random') {
    // lengths and per-prompt seeds are drawn in order, so the result does not depend on timing
    const jobs = Array.from({ length: count }, () => ({
      inTok: sampleLength(spec.inputTokens, rng),
      outTok: sampleLength(spec.outputTokens, rng),
      seed: Math.floor(rng() * 2 ** 32),
    }));
    const results: PromptItem[] = new Array(count);
    // a distinct random text per request defeats prefix caching across requests; the words of prompt i
    // depend on its seed and the ratio it starts from, so every prompt after the first starts from the
    // ratio the first one learnt (a copy each): which prompts finish first, under a busy tokenizer, then
    // changes nothing, and the same seed and salt give the same prompts (a replay is exact)
    const build = async (i: number, ratio: { tokensPerWord: number }): Promise<void> => {
      const j = jobs[i];
      const p = await randomPrompt(j.inTok, seededRng(saltedSeed(j.seed, spec.salt)), tokenizer, ratio);
      results[i] = { prompt: p.prompt, inputTokens: p.tokens, outputTokens: j.outTok };
    };
    if (count === 0) return results;
    const learnt = { tokensPerWord: 1 };
    await build(0, learnt);
    let next = 1;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < count; i = next++) await build(i, { ...learnt });
    };
    await Promise.all(Array.from({ length: Math.min(PROMPT_BUILD_PARALLELISM, count - 1) }, worker));
    return results;
  }
  const file = await readPromptFile(spec.dataset);
  const cap =
    'fixed' in spec.inputTokens
      ? spec.inputTokens.fixed
      : 'uniform' in spec.inputTokens
        ? spec.inputTokens.uniform[1]
        : Number.POSITIVE_INFINITY;
  const recorded = spec.outputLengths === 'recorded';
  const counted: PromptItem[] = [];
  for (let i = 0; i < file.length && counted.length < count * 4 && counted.length < file.length; i++) {
    const item = file[Math.floor(rng() * file.length)];
    const drawn = sampleLength(spec.outputTokens, rng); // drawn either way, so the draw order stays fixed
    if (recorded && item.reply === undefined) continue;
    const tokens = await tokenizer.count(item.prompt);
    if (tokens <= cap)
      counted.push({
        prompt: item.prompt,
        inputTokens: tokens,
        outputTokens: recorded ? Math.max(1, await tokenizer.count(item.reply as string)) : drawn,
      });
    if (counted.length >= count) break;
  }
  if (counted.length === 0) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `workload.dataset: no prompt in "${spec.dataset}" fits input_tokens (at most ${cap} tokens)${recorded ? ' and has a recorded reply' : ''}.`,
    );
  }
  for (let i = 0; i < count; i++) out.push(counted[i % counted.length]);
  return out;
}
