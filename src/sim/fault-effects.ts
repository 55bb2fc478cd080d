// What the faults do beyond parsing (faults.ts): the drifted configuration served under
// config-drift, the earlier start written by stale-log, the per-request draws of HTTP errors
// and stream faults, and the routes answered oversized or late.

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

/** ignore-max-tokens: the tokens a request really generates (1,000 × max_tokens when the fault draws it). */
export function generatedLimit(faults: Faults, rng: Rng, stream: boolean, maxNewTokens: number): number {
  if (!(stream && faults.ignoreMaxTokens > 0 && rng() < faults.ignoreMaxTokens)) return maxNewTokens;
  return maxNewTokens * 1000;
}

/**
 * The faults that act on a route before it is served: huge-models answers /v1/models itself (returns
 * true: answered), slow-metrics holds /metrics for its delay (then the route renders that moment's
 * counters).
 */
export async function routeFault(faults: Faults, path: string, res: ServerResponse): Promise<boolean> {
  if (faults.hugeModelsMiB > 0 && path === '/v1/models') {
    await sendHugeModelList(res, faults.hugeModelsMiB);
    return true;
  }
  if (faults.slowMetricsMs > 0 && path === '/metrics')
    await new Promise((r) => setTimeout(r, faults.slowMetricsMs));
  return false;
}

/**
 * huge-models: a /v1/models body of `mib` MiB, written piece by piece as the client reads it (the
 * simulator never holds it whole), ending early if the client goes away.
 */
async function sendHugeModelList(res: ServerResponse, mib: number): Promise<void> {
  const piece = Buffer.from(
    `${'{"id":"model","object":"model","owned_by":"huge-models fault"},'.repeat(1000)}`,
  );
  const total = Math.floor(mib * 1048576);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"object":"list","data":[');
  for (let sent = 0; sent < total && !res.destroyed; sent += piece.length) {
    if (!res.write(piece)) await drainedOrClosed(res);
  }
  res.end('{"id":"last","object":"model"}]}');
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
