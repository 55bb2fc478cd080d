// Command-line flags layered over a plan file: the flags' plan fragment is deep-merged over the file
// (flags win, arrays are replaced) and the result resolved as one plan whose errors name the flag the
// user typed rather than the plan key it set.

import { resolvePlan } from './load.js';
import { formatPlanPath, type PlanPath, valueAt } from './problem.js';
import type { Plan, PlanInput } from './schema.js';

/** Which flag sets which plan key, so plan errors name the flag the user typed. */
const FLAG_FOR_KEY: Record<string, string> = {
  'target.url': '--url',
  'target.engine': '--engine',
  'target.api': '--api',
  'target.model': '--model',
  'load.max_concurrency': '--max-concurrency',
  'load.arrival': '--arrival',
  'load.duration': '--duration',
  'load.requests': '--requests',
  'load.warmup': '--warmup',
  'load.workers': '--workers',
  'workload.input_tokens': '--input-tokens',
  'workload.output_tokens': '--output-tokens',
  'workload.seed': '--seed',
  'workload.dataset': '--dataset',
  'workload.salt': '--salt',
  'load.trials': '--trials',
  'load.cache': '--cache',
  output: '--out',
  name: '--name',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge where `over` wins; arrays are replaced, not merged. */
export function mergePlanInput(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = mergePlanInput(base[k], v);
  return out;
}

/**
 * The plan of `base` (a loaded plan file, or `{}`) with the flags' fragment over it, validated.
 * `levelsFlag` is the flag that set load.levels (`--rate` or `--concurrency`).
 */
export function resolvePlanWithFlags(
  base: unknown,
  flags: PlanInput,
  o: { planPath: string | null; levelsFlag: string },
): Plan {
  return resolvePlan(
    mergePlanInput(base, flags) as PlanInput,
    o.planPath ? `${o.planPath} + flags` : 'flags',
    {
      flags: { ...FLAG_FOR_KEY, 'load.levels': o.levelsFlag },
    },
  );
}

/** The flag that set the plan key at `path` when the flags' fragment set it (`--dataset`), else null. */
export function flagThatSet(flags: PlanInput, path: PlanPath): string | null {
  if (valueAt(flags, path) === undefined) return null;
  return FLAG_FOR_KEY[formatPlanPath(path)] ?? formatPlanPath(path);
}
