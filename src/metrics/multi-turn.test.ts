import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../records/request-record.js';
import { randomRecords } from '../records/test-support/random-records.js';
import { TurnAccumulator } from './multi-turn.js';

/** A successful record whose first token came `ttftMs` after it was sent. */
const turnRecord = (base: RequestRecord, turn: number, ttftMs: number, history: number): RequestRecord => ({
  ...base,
  warmup: false,
  error: null,
  sentMs: 100,
  chunkMs: [100 + ttftMs, 100 + ttftMs + 5],
  chunkTokens: [1, 1],
  turn,
  historyTokens: history,
  inputTokensServer: history + 3,
  cachedInputTokens: turn === 1 ? 0 : history - 10,
});

describe('per-turn figures of a multi-turn level', () => {
  it('groups TTFT and history length by turn position, skipping warmup and counting failures', () => {
    const [a, b, c, d, e, f] = randomRecords(6, 1);
    const acc = new TurnAccumulator();
    acc.add(turnRecord(a, 1, 200, 100));
    acc.add(turnRecord(b, 1, 220, 100));
    acc.add(turnRecord(c, 2, 90, 300));
    acc.add({ ...turnRecord(d, 2, 1, 999), warmup: true });
    acc.add({ ...turnRecord(e, 2, 50, 310), error: { code: 'BG_E_HTTP_STATUS', message: 'HTTP 503' } });
    acc.add({ ...f, turn: undefined });
    const turns = acc.finish([50, 99]);
    expect(turns?.map((t) => t.turn)).toEqual([1, 2]);
    const [t1, t2] = turns ?? [];
    expect(t1).toMatchObject({ completed: 2, failed: 0, historyTokens: { mean: 100, max: 100 } });
    expect(t1.ttftMs?.mean).toBe(210);
    expect(t1.ttftMs?.percentiles.p50).toBe(210);
    expect(t1.cachedShare).toBe(0);
    expect(t2).toMatchObject({ completed: 1, failed: 1, historyTokens: { mean: 300, max: 300 } });
    expect(t2.ttftMs?.count).toBe(1);
    expect(t2.inputTokensServerMean).toBe(303);
    expect(t2.cachedShare).toBeCloseTo(290 / 303, 9);
  });

  it('has nothing to say about a level without turns', () => {
    const acc = new TurnAccumulator();
    for (const r of randomRecords(5, 2)) acc.add(r);
    expect(acc.finish([50])).toBeNull();
  });
});
