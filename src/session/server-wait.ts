// Waiting for the target during a run (not in preparation, where the checkpoint's health check waits):
// a server that restarted mid-run is loading again when the next level starts, and one that died does
// not come back. Polls GET /v1/models (every OpenAI-compatible server has it; a loading one answers
// 503 or not at all) for up to the plan's `expect.wait`, with a progress line, and ends with
// BG_E_SERVER_DOWN naming the last answer when the server does not come back.

import { monoNowMs, parseDurationS } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import type { TargetHttp } from '../engines/types.js';
import type { ProgressView } from '../load/progress.js';
import type { Plan } from '../plan/schema.js';

export interface ServerWaitOptions {
  http: TargetHttp;
  plan: Plan;
  progress: ProgressView;
  /** What was about to happen, for the messages ("before level 4"). */
  when: string;
  signal?: AbortSignal;
  pollMs?: number;
}

/** Seconds to wait for a server that stopped answering mid-run: expect.wait, at least 5 s. */
export const MIN_MID_RUN_WAIT_S = 5;

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

async function probe(http: TargetHttp): Promise<string | null> {
  const doc = await http.request('/v1/models', { timeoutMs: 2000 });
  if (doc.status === 200) return null;
  return doc.error ? doc.error.message : `HTTP ${doc.status}`;
}

/** Returns once GET /v1/models answers 200; throws BG_E_SERVER_DOWN after the wait limit. */
export async function waitForServer(o: ServerWaitOptions): Promise<void> {
  let last = await probe(o.http);
  if (last === null) return;
  const waitS = Math.max(
    MIN_MID_RUN_WAIT_S,
    o.plan.expect.wait === undefined ? 0 : (parseDurationS(o.plan.expect.wait) ?? 0),
  );
  const start = monoNowMs();
  const elapsedS = () => (monoNowMs() - start) / 1000;
  let lastNoteS = -Infinity;
  while (elapsedS() < waitS && !o.signal?.aborted) {
    if (elapsedS() - lastNoteS >= 1) {
      lastNoteS = elapsedS();
      o.progress.note(
        `benchgate: the server at ${o.http.baseUrl} is not answering ${o.when} (${last}); waiting ${elapsedS().toFixed(0)}s / ${waitS}s`,
      );
    }
    await sleep(o.pollMs ?? 250, o.signal);
    last = await probe(o.http);
    if (last === null) {
      o.progress.note(
        `benchgate: the server at ${o.http.baseUrl} answers again after ${elapsedS().toFixed(1)}s`,
      );
      return;
    }
  }
  if (o.signal?.aborted) return; // interrupted: the level sees it and stops
  throw new BenchgateError(
    'BG_E_SERVER_DOWN',
    `the server at ${o.http.baseUrl} stopped answering during the run ${o.when} and was not back within ${waitS}s (expect.wait); last answer to GET /v1/models: ${last}.`,
  );
}
