// The run's prompt salt (workload.salt): a plan that does not set one gets a fresh one when it is
// resolved, so every run sends prompts no server has cached, and the resolved plan (written to the
// manifest) records it, so `--salt N` or `workload.salt: N` replays a run's prompts exactly.

import { randomInt } from 'node:crypto';
import type { Plan } from './schema.js';

/** A salt drawn from the OS: 1 … 2³¹ − 1 (0 means "no salt" to the prompt builders). */
export function freshSalt(): number {
  return randomInt(1, 2 ** 31 - 1);
}

/** The plan with workload.salt set: its own when it has one, else a fresh one. */
export function withFreshSalt(plan: Plan): Plan {
  if (plan.workload.salt !== undefined) return plan;
  return { ...plan, workload: { ...plan.workload, salt: freshSalt() } };
}
