// What the faults do beyond parsing (faults.ts): the drifted configuration served under
// config-drift, the earlier start written by stale-log, and the per-request draws of HTTP errors
// and stream faults.

import type { ServerResponse } from 'node:http';
import type { Rng } from '../core/seeded-random.js';
import { deriveServedConfig } from './engine-args.js';
import type { Faults } from './faults.js';
import type { FlavorLogs } from './flavor.js';
import type { StreamFault } from './generation-spec.js';
import type { ErrorSender } from './http-util.js';
import type { SimProfile } from './profiles.js';
import type { ServedConfig, SimEnv } from './served-config.js';

/** config-drift: overlap off, or (already off) half the max running requests. */
export function driftConfig(c: ServedConfig): ServedConfig {
  if (!c.disableOverlapSchedule) {
    return {
      ...c,
      disableOverlapSchedule: true,
      engineArgs: { ...c.engineArgs, disable_overlap_schedule: true },
    };
  }
  const mrr = Math.max(1, Math.floor(c.maxRunningRequests / 2));
  const key = c.flavor === 'sglang' ? 'max_running_requests' : 'max_num_seqs';
  return { ...c, maxRunningRequests: mrr, engineArgs: { ...c.engineArgs, [key]: mrr } };
}

/** stale-log: the other configuration (EAGLE3 top-k 4 when none was requested, else no speculative). */
function staleConfig(c: ServedConfig, profile: SimProfile, env: SimEnv): ServedConfig {
  if (c.flavor === 'llamacpp') {
    const spec = ['-md', 'draft.gguf', '--spec-type', 'draft-simple'];
    return deriveServedConfig(c.flavor, profile, ['-m', c.modelPath, ...(c.specAlgorithm ? [] : spec)], env);
  }
  const argv = c.specAlgorithm
    ? ['--tp-size', String(c.tpSize)]
    : ['--tp-size', String(c.tpSize), '--speculative-algorithm', 'EAGLE3', '--speculative-eagle-topk', '4'];
  argv.push('--speculative-num-steps', '3', '--speculative-num-draft-tokens', '8');
  if (!c.specAlgorithm)
    return deriveServedConfig(c.flavor, profile, argv, { ...env, SGLANG_ENABLE_SPEC_V2: undefined });
  return deriveServedConfig(c.flavor, profile, ['--tp-size', String(c.tpSize)], env);
}

/** stale-log: a whole start of the stale configuration one hour ago, by the previous process. */
export function staleLogLines(
  requested: ServedConfig,
  profile: SimProfile,
  env: SimEnv,
  logs: FlavorLogs,
  where: { host?: string; port?: number; pid: number },
): string[] {
  const stale = staleConfig(requested, profile, env);
  const at = new Date(Date.now() - 3_600_000);
  const pid = where.pid - 1;
  return [
    ...logs.start(stale, at, pid),
    ...(logs.loading?.(stale, at, pid) ?? []),
    ...logs.loaded(stale, at, pid, profile.architecture),
    ...logs.ready(at, where.host ?? '127.0.0.1', where.port || logs.defaultPort, pid),
  ];
}

/** http-errors: answers 500 or 503 (seeded) and returns true when this request draws an error. */
export function sentHttpError(
  faults: Faults,
  rng: Rng,
  res: ServerResponse,
  sendError: ErrorSender,
): boolean {
  if (!(faults.httpErrors > 0 && rng() < faults.httpErrors)) return false;
  const status = rng() < 0.5 ? 500 : 503;
  sendError(
    res,
    status,
    status === 500 ? 'Internal server error' : 'Service unavailable',
    status === 500 ? 'InternalServerError' : 'ServiceUnavailableError',
  );
  return true;
}

/** Which stream fault (if any) hits a streaming request, drawn at arrival. */
export function drawStreamFault(faults: Faults, rng: Rng): StreamFault {
  if (faults.stallStream > 0 && rng() < faults.stallStream) return 'stall';
  if (faults.malformedChunk > 0 && rng() < faults.malformedChunk) return 'malformed';
  if (faults.resetMidStream > 0 && rng() < faults.resetMidStream) return 'reset';
  return null;
}
