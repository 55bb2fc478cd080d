// How a prompt becomes the generation parameters of a request in this session: the plan's API,
// temperature and ignore_eos (on by default where recorded reply lengths must be honoured) and the
// session's chosen model.

import type { GenerationParams } from '../engines/types.js';
import type { PromptItem } from '../load/prompts.js';
import type { Plan } from '../plan/schema.js';

export type ParamsFor = (p: PromptItem) => GenerationParams;

export function generationParams(plan: Plan, model: string): ParamsFor {
  const w = plan.workload;
  // recorded reply lengths are only honoured when the server does not stop at EOS first
  const ignoreEos =
    w.ignore_eos ?? (w.dataset === 'random' || (w.kind === 'sharegpt' && w.output_lengths === 'recorded'));
  return (p) => ({
    api: plan.target.api,
    model,
    prompt: p.prompt,
    maxTokens: p.outputTokens,
    ignoreEos,
    temperature: plan.workload.temperature,
    stream: true,
  });
}
