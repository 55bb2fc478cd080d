// Workload kinds that fix how load is applied: a trace is replayed open loop (each level a speed factor),
// so a trace with concurrency levels (or an SLO search) is a plan error found before anything runs,
// not after the checkpoint and the smoke request when the level is built.

import type { PlanProblem } from './problem.js';

type Raw = Record<string, unknown>;

const asMap = (v: unknown): Raw | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : null;

export function traceLoadProblems(plan: Raw): PlanProblem[] {
  if (asMap(plan.workload)?.kind !== 'trace') return [];
  const load = asMap(plan.load);
  const kind = load?.kind ?? 'concurrency';
  if (kind === 'rate') return [];
  return [
    {
      path: load?.kind === undefined ? ['workload', 'kind'] : ['load', 'kind'],
      message: `workload.kind trace replays the trace's arrivals open loop, each level a speed factor: set load.kind: rate (found ${String(kind)})`,
      anchor: 'value',
    },
  ];
}
