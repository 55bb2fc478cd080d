// Waits for a launched server to become ready (GET /health answering 200 twice in a row) while
// watching for early death: the process exiting, a crash signature in its output, or health that flaps.

import { LOG_QUIET_S, REFUSED_GRACE_S } from '../checkpoint/checks/health.js';
import { createTargetHttp } from '../client/target-http.js';
import { monoNowMs } from '../core/clock.js';
import type { LogTail } from './log-tail.js';
import { sleep } from './process-table.js';

export type ReadyOutcome =
  | { kind: 'ready'; elapsedS: number }
  | { kind: 'exited'; elapsedS: number; code: number | null; signal: string | null }
  | { kind: 'crashed'; elapsedS: number; line: number; excerpt: string }
  | { kind: 'flapping'; elapsedS: number; flips: number }
  | { kind: 'timeout'; elapsedS: number; lastStatus: string }
  /** Alive, but connections refused past the grace and its output quiet: a wrong port, not a slow load. */
  | { kind: 'not-listening'; elapsedS: number; refusedS: number; quietS: number }
  | { kind: 'aborted'; elapsedS: number };

export interface WaitReadyOptions {
  url: string;
  timeoutS: number;
  exited: Promise<{ code: number | null; signal: string | null }>;
  log: LogTail;
  headers?: Record<string, string>;
  pollMs?: number;
  /** Called about once a second with "elapsed / limit · newest log line". */
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
  /** Output unchanged this long while nothing listens ends the wait (default LOG_QUIET_S, as the checkpoint). */
  quietS?: number;
}

const READY_STREAK = 2;
const FLAPS_ALLOWED = 2;

export async function waitForReady(opts: WaitReadyOptions): Promise<ReadyOutcome> {
  const http = createTargetHttp(opts.url, { headers: opts.headers, timeoutMs: 2000 });
  const start = monoNowMs();
  const elapsedS = () => (monoNowMs() - start) / 1000;
  let exit: { code: number | null; signal: string | null } | null = null;
  void opts.exited.then((e) => {
    exit = e;
  });
  let streak = 0;
  let everHealthy = false;
  let flips = 0;
  let lastStatus = 'no answer yet';
  let lastProgress = -1;
  const pollMs = opts.pollMs ?? 250;
  // The checkpoint's rule (checks/health.ts): refused past the grace, then waiting goes on only while the
  // server's output moves (a model loading prints); any HTTP answer means a server is there.
  let everAnswered = false;
  let refusedSinceMs: number | null = null;
  let outputLines = opts.log.lineCount;
  let outputChangedMs = monoNowMs();
  for (;;) {
    if (opts.signal?.aborted) return { kind: 'aborted', elapsedS: elapsedS() };
    const crash = opts.log.crashHit;
    if (crash) return { kind: 'crashed', elapsedS: elapsedS(), line: crash.line, excerpt: crash.excerpt };
    if (exit) {
      const e = exit as { code: number | null; signal: string | null };
      return { kind: 'exited', elapsedS: elapsedS(), code: e.code, signal: e.signal };
    }
    const doc = await http.request('/health', { timeoutMs: 2000 });
    const ok = doc.status === 200;
    lastStatus = doc.error ? doc.error.message : `HTTP ${doc.status}`;
    if (doc.status !== null) everAnswered = true;
    const refused = !everAnswered && doc.error !== undefined && /ECONNREFUSED/.test(doc.error.message);
    refusedSinceMs = refused ? (refusedSinceMs ?? monoNowMs()) : null;
    if (opts.log.lineCount !== outputLines) {
      outputLines = opts.log.lineCount;
      outputChangedMs = monoNowMs();
    }
    if (refusedSinceMs !== null) {
      const refusedS = (monoNowMs() - refusedSinceMs) / 1000;
      const quietS = (monoNowMs() - outputChangedMs) / 1000;
      if (refusedS >= REFUSED_GRACE_S && quietS >= (opts.quietS ?? LOG_QUIET_S))
        return { kind: 'not-listening', elapsedS: elapsedS(), refusedS, quietS };
    }
    if (ok) {
      streak += 1;
      everHealthy = true;
      if (streak >= READY_STREAK) {
        // A crash line or exit racing with the last poll still wins.
        await sleep(50);
        const late = opts.log.crashHit;
        if (late) return { kind: 'crashed', elapsedS: elapsedS(), line: late.line, excerpt: late.excerpt };
        if (!exit) return { kind: 'ready', elapsedS: elapsedS() };
        continue;
      }
    } else {
      if (streak > 0 && everHealthy) flips += 1;
      streak = 0;
      if (flips > FLAPS_ALLOWED) return { kind: 'flapping', elapsedS: elapsedS(), flips };
    }
    const el = elapsedS();
    if (el >= opts.timeoutS) return { kind: 'timeout', elapsedS: el, lastStatus };
    if (opts.onProgress && Math.floor(el) !== lastProgress) {
      lastProgress = Math.floor(el);
      const newest = opts.log.newest();
      opts.onProgress(
        `${el.toFixed(0)} s / ${opts.timeoutS.toFixed(0)} s · ${lastStatus}${newest ? ` · ${newest.slice(0, 100)}` : ''}`,
      );
    }
    await sleep(pollMs, opts.signal);
  }
}
