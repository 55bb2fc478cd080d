// The three deadlines of one streaming request, as pure functions over its clock readings, so the
// record-keeping (stream-run.ts) holds one lazy timer: total from the send; first token from the send;
// and the stall clock, which starts at the first token chunk (a long prefill is governed by ttft_s
// alone, so stall_s never caps it) and restarts at every byte read after it.

import type { RequestErrorCode } from '../core/errors.js';
import type { StreamTimeouts } from './stream-run.js';

/** Where the request is: when it was sent, when a byte last arrived, how many token chunks came. */
export interface StreamClock {
  sentAbs: number;
  lastDataAbs: number;
  chunks: number;
}

/** When the next deadline falls (absolute ms): the first token's until it arrives, then the stall's. */
export function nextDeadline(t: StreamTimeouts, c: StreamClock): number {
  const running = c.chunks > 0 ? c.lastDataAbs + t.stallMs : c.sentAbs + t.ttftMs;
  return Math.min(c.sentAbs + t.totalMs, running);
}

/** The deadline passed at `now`, as the failure it records, or null when none has. */
export function passedDeadline(
  t: StreamTimeouts,
  c: StreamClock,
  now: number,
): { code: RequestErrorCode; message: string } | null {
  if (now >= c.sentAbs + t.totalMs)
    return {
      code: 'BG_E_TOTAL_TIMEOUT',
      message: `the request took longer than the total timeout of ${t.totalMs} ms.`,
    };
  if (c.chunks === 0 && now >= c.sentAbs + t.ttftMs)
    return {
      code: 'BG_E_TTFT_TIMEOUT',
      message: `no token arrived within the first-token timeout of ${t.ttftMs} ms.`,
    };
  if (c.chunks > 0 && now >= c.lastDataAbs + t.stallMs)
    return {
      code: 'BG_E_STALL_TIMEOUT',
      message: `no bytes arrived for ${t.stallMs} ms (stall timeout) after ${c.chunks} token chunks.`,
    };
  return null;
}
