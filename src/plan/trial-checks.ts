// load.trials where it is not yet honoured: the matrix (configs:) and SLO searches run each level once,
// so a plan asking for trials there is refused before anything runs instead of silently running one.

import type { PlanProblem } from './problem.js';

export function trialProblems(plan: Record<string, unknown>): PlanProblem[] {
  const load = plan.load as Record<string, unknown> | undefined;
  const trials = load?.trials;
  if (typeof trials !== 'number' || trials <= 1) return [];
  const path = ['load', 'trials'];
  if (Array.isArray(plan.configs) && plan.configs.length > 0)
    return [
      {
        path,
        message:
          'the matrix (configs:) does not repeat trials yet: run each config with benchgate bench --trials N, or leave trials at 1',
        anchor: 'key',
      },
    ];
  if (load?.kind === 'slo_search')
    return [
      {
        path,
        message: 'an SLO search probes loads of its own; trials apply to kind: concurrency or rate',
        anchor: 'key',
      },
    ];
  return [];
}
