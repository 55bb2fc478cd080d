// What every part of `npm run bench:client` shares: the plan's default timeouts, the transports compared
// side by side, and one closed-loop level of streaming completions sent through the client's own
// streamRequest and level runner (the path `bench` takes).

import { performance } from 'node:perf_hooks';
import { streamRequest, timeoutsFromPlan } from '../client/stream-request.js';
import type { TransportName } from '../client/transport.js';
import type { BuiltRequest } from '../engines/types.js';
import { runLevel } from '../load/level-runner.js';
import { targetSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { closedLoopShape } from './bench-shape.js';

/** The plan's default request timeouts (their one home is the plan schema). */
export const TIMEOUTS = timeoutsFromPlan(targetSchema.shape.timeouts.parse(undefined));

export const TRANSPORTS: { name: TransportName; label: string }[] = [
  { name: 'raw', label: 'raw-socket' },
  { name: 'undici', label: 'undici Pool' },
  { name: 'node-http', label: 'node:http' },
];

/** A streaming completion of `maxTokens` tokens, for the pre-rendered server (it ignores the body). */
export function request(maxTokens: number): BuiltRequest {
  return {
    method: 'POST',
    path: '/v1/completions',
    body: { model: 'm', prompt: 'hi', max_tokens: maxTokens, stream: true },
    tokenAccounting: 'openai-final-usage',
  };
}

/** One closed-loop level of `requests` at `concurrency`; returns its time origin (performance.now() ms). */
export async function closedLoop(
  url: string,
  concurrency: number,
  requests: number,
  built: BuiltRequest,
  maxTokens: number,
  sink: (r: RequestRecord) => void,
  transport: TransportName = 'raw',
): Promise<number> {
  const origin = performance.now();
  let id = 0;
  await runLevel({
    shape: closedLoopShape(concurrency, requests),
    send: (a) =>
      streamRequest({
        baseUrl: url,
        request: built,
        originMs: origin,
        id: id++,
        levelIndex: 0,
        warmup: false,
        scheduledAtMs: a.scheduledAtMs,
        requestedOutputTokens: maxTokens,
        timeouts: TIMEOUTS,
        signal: a.signal,
        transport,
      }),
    onRecord: sink,
  });
  return origin;
}
