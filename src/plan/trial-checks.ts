// load.trials where it is not honoured: an SLO search probes loads of its own and runs each once, so a
// plan asking for trials there is refused before anything runs instead of silently running one. The
// matrix (configs:) honours trials by running its configs in rounds (matrix/trials.ts).

import type { PlanProblem } from './problem.js';

export function trialProblems(plan: Record<string, unknown>): PlanProblem[] {
  const load = plan.load as Record<string, unknown> | undefined;
  const trials = load?.trials;
  if (typeof trials !== 'number' || trials <= 1) return [];
  if (load?.kind === 'slo_search')
    return [
      {
        path: ['load', 'trials'],
        message: 'an SLO search probes loads of its own; trials apply to kind: concurrency or rate',
        anchor: 'key',
      },
    ];
  return [];
}
