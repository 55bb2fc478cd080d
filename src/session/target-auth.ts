// What every request of a run carries to the target: the plan's headers and the API key from the
// environment variable the plan names (both secrets), and the stream timeouts the plan sets.

import { type StreamTimeouts, timeoutsFromPlan } from '../client/stream-request.js';
import { BenchgateError } from '../core/errors.js';
import type { Plan } from '../plan/schema.js';

/** Plan headers plus `Authorization: Bearer <target.api_key_env>`; the values are secrets. */
export function authHeaders(
  plan: Plan,
  env: Record<string, string | undefined>,
): { headers: Record<string, string>; secrets: string[] } {
  const headers: Record<string, string> = { ...plan.target.headers };
  const secrets = Object.values(headers);
  const varName = plan.target.api_key_env;
  if (varName) {
    const key = env[varName];
    if (!key) {
      throw new BenchgateError(
        'BG_E_PLAN_INVALID',
        `target.api_key_env names the variable ${varName}, but it is not set or empty.`,
      );
    }
    headers.authorization = `Bearer ${key}`;
    secrets.push(key, headers.authorization);
  }
  return { headers, secrets };
}

export function streamTimeouts(plan: Plan): StreamTimeouts {
  return timeoutsFromPlan(plan.target.timeouts);
}
