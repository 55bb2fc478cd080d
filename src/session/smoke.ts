// The smoke request of a session: one short generation with the run's own parameters proves the
// endpoint streams before anything is written or measured. An intermittent error (a 503 right after
// the checkpoint) is sent again after a back-off; only stream-level failures count.

import { type StreamTimeouts, streamRequest } from '../client/stream-request.js';
import { monoNowMs } from '../core/clock.js';
import { BenchgateError, type ErrorCode } from '../core/errors.js';
import type { EngineAdapter, GenerationParams } from '../engines/types.js';
import type { ProgressView } from '../load/progress.js';

/** Smoke attempts; an intermittent error (a 503 right after the checkpoint) is sent again after a back-off. */
export const SMOKE_ATTEMPTS = 4;
const SMOKE_BACKOFF_MS = [250, 500, 1000];

const SMOKE_FATAL = new Set<ErrorCode>([
  'BG_E_CONNECT',
  'BG_E_HTTP_STATUS',
  'BG_E_NOT_SSE',
  'BG_E_MALFORMED_CHUNK',
  'BG_E_STREAM_TRUNCATED',
  'BG_E_STREAM_ERROR_EVENT',
  'BG_E_SSE_EVENT_TOO_LARGE',
]);

export interface SmokeTarget {
  url: string;
  adapter: EngineAdapter;
  headers: Record<string, string>;
  timeouts: StreamTimeouts;
  progress: ProgressView;
  /** The run's interrupt: the smoke request and its back-off end with it. */
  signal?: AbortSignal;
}

/** One short request proves the endpoint streams; throws after SMOKE_ATTEMPTS failures in a row. */
export async function smoke(t: SmokeTarget, params: GenerationParams): Promise<void> {
  const req = t.adapter.requestFor(params);
  for (let attempt = 1; ; attempt++) {
    const failure = await smokeOnce(t, req, params);
    if (t.signal?.aborted) throw new BenchgateError('BG_E_ABORTED', 'interrupted during the smoke request.');
    if (failure === null) return;
    if (attempt >= SMOKE_ATTEMPTS) {
      throw new BenchgateError(
        failure.code,
        `the first request to ${t.url}${req.path} failed ${SMOKE_ATTEMPTS} times in a row; the last: ${failure.message}`,
      );
    }
    const waitMs = SMOKE_BACKOFF_MS[Math.min(attempt - 1, SMOKE_BACKOFF_MS.length - 1)];
    t.progress.note(
      `benchgate: the first request failed (${failure.message.slice(0, 120)}); trying again in ${waitMs} ms`,
    );
    await new Promise<void>((r) => {
      const timer = setTimeout(r, waitMs);
      t.signal?.addEventListener('abort', () => r(clearTimeout(timer)), { once: true });
    });
  }
}

async function smokeOnce(
  t: SmokeTarget,
  req: ReturnType<EngineAdapter['requestFor']>,
  params: GenerationParams,
): Promise<{ code: ErrorCode; message: string } | null> {
  const r = await streamRequest({
    baseUrl: t.url,
    request: req,
    headers: t.headers,
    timeouts: t.timeouts,
    originMs: monoNowMs(),
    id: -1,
    levelIndex: -1,
    warmup: true,
    requestedOutputTokens: params.maxTokens,
    signal: t.signal,
  });
  if (r.error && SMOKE_FATAL.has(r.error.code as ErrorCode)) {
    return { code: r.error.code as ErrorCode, message: r.error.message };
  }
  return null;
}
