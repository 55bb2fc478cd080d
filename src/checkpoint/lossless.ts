// Sends the lossless check's prompts to one server, one at a time (batch size 1, so batching cannot
// change the numerics), greedy (temperature 0) with a fixed max tokens and not streamed, and reads each
// answer: SGLang's native /generate returns the token ids (`output_ids`), the OpenAI APIs only text.
// Each request also asks for the top-2 log-probabilities per token (lossless-logprobs.ts reads them), so
// a divergence can be told apart as a near-tie or a bug; an engine that refuses that is asked without.
// Never throws for a bad answer: it is recorded with its error, and the comparison calls it unknown.

import type { EngineAdapter, TargetHttp } from '../engines/types.js';
import type { LosslessAnswer, LosslessAnswers } from '../metrics/lossless.js';
import type { Plan } from '../plan/schema.js';
import { LOSSLESS_TOP_LOGPROBS, readLogprobs } from './lossless-logprobs.js';
import { losslessPrompts } from './lossless-prompts.js';

export interface LosslessSettings {
  prompts: number;
  seed: number;
  maxTokens: number;
}

/** The plan's lossless settings (defaults when the section is absent). */
export function losslessSettings(plan: Plan): LosslessSettings {
  const l = plan.lossless;
  return { prompts: l?.prompts ?? 16, seed: l?.seed ?? 1, maxTokens: l?.max_tokens ?? 64 };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The text and (when given) token ids of a non-streamed answer; null when the body has neither. */
export function readAnswer(
  api: Plan['target']['api'],
  json: unknown,
): { text: string; ids: number[] | null } | null {
  if (!isObj(json)) return null;
  if (api === 'native') {
    if (typeof json.text !== 'string') return null;
    const ids = json.output_ids;
    const hasIds = Array.isArray(ids) && ids.length > 0 && ids.every((x) => Number.isInteger(x));
    return { text: json.text, ids: hasIds ? (ids as number[]) : null };
  }
  const choice = Array.isArray(json.choices) && isObj(json.choices[0]) ? json.choices[0] : null;
  if (!choice) return null;
  const text = api === 'chat' ? (isObj(choice.message) ? choice.message.content : undefined) : choice.text;
  return typeof text === 'string' ? { text, ids: null } : null;
}

async function askOne(
  http: TargetHttp,
  adapter: EngineAdapter,
  opts: { api: Plan['target']['api']; model: string; prompt: string; maxTokens: number; timeoutMs: number },
): Promise<LosslessAnswer> {
  const ask = (topLogprobs: number | undefined) => {
    const built = adapter.requestFor({
      api: opts.api,
      model: opts.model,
      prompt: opts.prompt,
      maxTokens: opts.maxTokens,
      ignoreEos: false,
      temperature: 0,
      stream: false,
      topLogprobs,
    });
    const sent = http.request(built.path, { method: 'POST', body: built.body, timeoutMs: opts.timeoutMs });
    return sent.then((doc) => ({ doc, path: built.path }));
  };
  let { doc, path } = await ask(LOSSLESS_TOP_LOGPROBS);
  // an engine that refuses the logprob fields is asked again without them: the answer still counts
  if (!doc.error && doc.status !== null && doc.status >= 400 && doc.status < 500)
    ({ doc, path } = await ask(undefined));
  const fail = (error: string): LosslessAnswer => ({ prompt: opts.prompt, ids: null, text: '', error });
  if (doc.error) return fail(doc.error.message);
  if (doc.status !== 200) return fail(`HTTP ${doc.status} from POST ${path}: ${doc.text.slice(0, 200)}`);
  const answer = readAnswer(opts.api, doc.json);
  if (!answer) return fail(`POST ${path} answered without a readable text: ${doc.text.slice(0, 200)}`);
  return { prompt: opts.prompt, ...answer, logprobs: readLogprobs(opts.api, doc.json), error: null };
}

/** Sends every prompt in order and returns the answers (errors kept per prompt). */
export async function collectLosslessAnswers(opts: {
  http: TargetHttp;
  adapter: EngineAdapter;
  api: Plan['target']['api'];
  model: string;
  settings: LosslessSettings;
  /** The prompts to send; default: the built-in ones the settings choose. */
  prompts?: string[];
  timeoutMs?: number;
  signal?: AbortSignal;
}): Promise<LosslessAnswers> {
  const answers: LosslessAnswer[] = [];
  const prompts = opts.prompts ?? losslessPrompts(opts.settings.prompts, opts.settings.seed);
  for (const prompt of prompts) {
    if (opts.signal?.aborted) {
      answers.push({ prompt, ids: null, text: '', error: 'interrupted' });
      continue;
    }
    answers.push(
      await askOne(opts.http, opts.adapter, {
        api: opts.api,
        model: opts.model,
        prompt,
        maxTokens: opts.settings.maxTokens,
        timeoutMs: opts.timeoutMs ?? 300_000,
      }),
    );
  }
  return {
    schema: 'benchgate.lossless-answers/1',
    maxTokens: opts.settings.maxTokens,
    seed: opts.settings.seed,
    answers,
  };
}
