// Per-turn figures of a multi-turn level: TTFT and the history length at each turn position, so the
// effect of a growing history (longer prefill, prefix-cache hits on the earlier turns) shows turn by
// turn. Records are fed one at a time (the session adds them as they complete); warmup is skipped.
// Pure: no I/O.

import type { RequestRecord } from '../records/request-record.js';
import { distribution } from './distribution.js';
import { requestLatencies } from './request-latency.js';
import type { TurnSummary } from './summary.js';

interface TurnSamples {
  completed: number;
  failed: number;
  ttftMs: number[];
  historySum: number;
  historyMax: number;
  serverInputSum: number;
  serverInputCount: number;
  cachedSum: number;
  cachedPromptSum: number;
}

export class TurnAccumulator {
  private readonly byTurn = new Map<number, TurnSamples>();

  /** One record; records without a turn (other workloads) and warmup are ignored. */
  add(r: RequestRecord): void {
    if (r.warmup || r.turn === undefined) return;
    let t = this.byTurn.get(r.turn);
    if (!t) {
      t = {
        completed: 0,
        failed: 0,
        ttftMs: [],
        historySum: 0,
        historyMax: 0,
        serverInputSum: 0,
        serverInputCount: 0,
        cachedSum: 0,
        cachedPromptSum: 0,
      };
      this.byTurn.set(r.turn, t);
    }
    if (r.error !== null) {
      t.failed++;
      return;
    }
    t.completed++;
    const ttft = requestLatencies(r).ttftMs;
    if (ttft !== null) t.ttftMs.push(ttft);
    const history = r.historyTokens ?? 0;
    t.historySum += history;
    if (history > t.historyMax) t.historyMax = history;
    if (r.inputTokensServer !== null) {
      t.serverInputSum += r.inputTokensServer;
      t.serverInputCount++;
      if (r.cachedInputTokens !== undefined && r.cachedInputTokens !== null) {
        t.cachedSum += r.cachedInputTokens;
        t.cachedPromptSum += r.inputTokensServer;
      }
    }
  }

  /** Turn positions in order; null when no measured record had a turn. */
  finish(percentiles: readonly number[]): TurnSummary[] | null {
    if (this.byTurn.size === 0) return null;
    return [...this.byTurn.entries()]
      .sort(([a], [b]) => a - b)
      .map(([turn, t]) => ({
        turn,
        completed: t.completed,
        failed: t.failed,
        ttftMs: distribution(t.ttftMs, percentiles),
        historyTokens: t.completed > 0 ? { mean: t.historySum / t.completed, max: t.historyMax } : null,
        inputTokensServerMean: t.serverInputCount > 0 ? t.serverInputSum / t.serverInputCount : null,
        cachedShare: t.cachedPromptSum > 0 ? t.cachedSum / t.cachedPromptSum : null,
      }));
  }
}
