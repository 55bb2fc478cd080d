// Test support for the level runner's tests: a `send` that streams one small completion from a server,
// with ids counted per sender, so each test file drives runLevel against a real server the same way.

import { performance } from 'node:perf_hooks';
import { streamRequest } from '../client/stream-request.js';
import { planDefaultTimeouts } from '../client/test-support/timeouts.js';
import type { RequestRecord } from '../records/request-record.js';
import type { SendArgs } from './level-runner.js';

export function completionSender(
  baseUrl: () => string,
  body: Record<string, unknown>,
  requestedOutputTokens: number,
  originMs = performance.now(),
): (a: SendArgs) => Promise<RequestRecord> {
  let nextId = 0;
  return (a) =>
    streamRequest({
      baseUrl: baseUrl(),
      request: { method: 'POST', path: '/v1/completions', body, tokenAccounting: 'openai-final-usage' },
      originMs,
      id: nextId++,
      levelIndex: 0,
      warmup: a.warmup,
      scheduledAtMs: a.scheduledAtMs,
      requestedOutputTokens,
      timeouts: planDefaultTimeouts(),
      signal: a.signal,
    });
}
