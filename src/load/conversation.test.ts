import { describe, expect, it } from 'vitest';
import { seededRng } from '../core/seeded-random.js';
import type { ThinkTime } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { Conversations, drawThinkMs } from './conversation.js';
import type { PromptItem } from './prompts.js';

const pool: PromptItem[] = Array.from({ length: 12 }, (_, i) => ({
  prompt: `message ${i}`,
  inputTokens: 10 + i,
  outputTokens: 5,
}));

const driver = (over: { turns?: number; think?: ThinkTime; seed?: number } = {}) =>
  new Conversations({
    turns: over.turns ?? 3,
    thinkTimeMs: over.think ?? 100,
    messages: pool,
    seed: over.seed ?? 1,
    levelIndex: 0,
  });

/** A finished record as the client would return it (only what the driver reads). */
const record = (outputTokens: number, failed = false): RequestRecord =>
  ({
    outputTokensServer: outputTokens,
    outputTokensClient: outputTokens,
    chunkTokens: [],
    error: failed ? { code: 'BG_E_HTTP_STATUS', message: 'HTTP 500' } : null,
  }) as unknown as RequestRecord;

describe('multi-turn conversations', () => {
  it('sends the whole history: earlier user messages and the replies received, verbatim', () => {
    const c = driver();
    const t1 = c.nextTurn(0);
    expect(t1.turn).toBe(1);
    expect(t1.messages).toEqual([{ role: 'user', content: 'message 0' }]);
    expect(t1.historyTokens).toBe(10);
    c.finishTurn(t1, record(7), ' reply one', 1000);
    const t2 = c.nextTurn(0);
    expect(t2.turn).toBe(2);
    expect(t2.conversationId).toBe(t1.conversationId);
    expect(t2.messages).toEqual([
      { role: 'user', content: 'message 0' },
      { role: 'assistant', content: ' reply one' },
      { role: 'user', content: 'message 1' },
    ]);
    // history = message 0 (10) + the reply as the server counted it (7) + message 1 (11)
    expect(t2.historyTokens).toBe(28);
  });

  it('never sends a user message twice before the pool is used up, whichever user is faster', () => {
    const c = driver({ turns: 2 });
    const seen: string[] = [];
    for (const u of [0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1]) {
      const t = c.nextTurn(u);
      seen.push(t.message.prompt);
      c.finishTurn(t, record(1), 'r', 0);
    }
    expect(new Set(seen).size).toBe(pool.length);
  });

  it('starts a new conversation after the last turn, at once', () => {
    const c = driver({ turns: 2 });
    const t1 = c.nextTurn(1);
    c.finishTurn(t1, record(3), 'a', 50);
    expect(c.dueAtMs(1)).toBe(150);
    const t2 = c.nextTurn(1);
    c.finishTurn(t2, record(3), 'b', 400);
    expect(c.dueAtMs(1)).toBe(0);
    const t3 = c.nextTurn(1);
    expect(t3.turn).toBe(1);
    expect(t3.conversationId).not.toBe(t1.conversationId);
    expect(t3.messages).toEqual([{ role: 'user', content: 'message 2' }]);
  });

  it('ends the conversation on a failed turn (no reply to continue from) and starts the next at once', () => {
    const c = driver();
    const t1 = c.nextTurn(0);
    c.finishTurn(t1, record(0, true), '', 80);
    expect(c.dueAtMs(0)).toBe(0);
    const t2 = c.nextTurn(0);
    expect(t2.turn).toBe(1);
    expect(t2.messages).toHaveLength(1);
  });

  it('makes the next turn due a think time after the reply ended, per user', () => {
    const c = driver({ think: 250 });
    const a = c.nextTurn(0);
    const b = c.nextTurn(1);
    c.finishTurn(a, record(1), 'x', 1000);
    expect(c.dueAtMs(0)).toBe(1250);
    expect(c.dueAtMs(1)).toBe(0);
    c.finishTurn(b, record(1), 'y', 2000);
    expect(c.dueAtMs(1)).toBe(2250);
  });

  it('draws think times from the seed: the same per user whatever the order users finish in', () => {
    const think: ThinkTime = { uniform: [100, 900] };
    const run = (order: number[]) => {
      const c = driver({ think, turns: 10 });
      const due: Record<number, number[]> = { 0: [], 1: [] };
      for (let k = 0; k < 4; k++)
        for (const u of order) {
          c.finishTurn(c.nextTurn(u), record(1), 'r', 0);
          due[u].push(c.dueAtMs(u));
        }
      return due;
    };
    const forward = run([0, 1]);
    expect(run([1, 0])).toEqual(forward);
    expect(forward[0]).not.toEqual(forward[1]);
    for (const v of [...forward[0], ...forward[1]]) {
      expect(v).toBeGreaterThanOrEqual(100);
      expect(v).toBeLessThanOrEqual(900);
    }
  });

  it('draws fixed, uniform and exponential think times', () => {
    const rng = seededRng(3);
    expect(drawThinkMs(40, rng)).toBe(40);
    expect(drawThinkMs({ fixed: 40 }, rng)).toBe(40);
    const exp = Array.from({ length: 4000 }, () => drawThinkMs({ exponential: 200 }, rng));
    const mean = exp.reduce((a, b) => a + b, 0) / exp.length;
    expect(mean).toBeGreaterThan(180);
    expect(mean).toBeLessThan(220);
    expect(Math.min(...exp)).toBeGreaterThanOrEqual(0);
  });

  it('tags each record with its conversation, turn and history length', async () => {
    const c = driver();
    const sent: string[][] = [];
    const transmit = async (t: { messages: { content: string }[] }, reply: string[]) => {
      sent.push(t.messages.map((m) => m.content));
      reply.push(' one', ' two');
      return record(2);
    };
    const r1 = await c.send({ stream: 1 }, transmit);
    const r2 = await c.send({ stream: 1 }, transmit);
    expect(r1).toMatchObject({ conversationId: 'u1c1', turn: 1, historyTokens: 10 });
    expect(r2).toMatchObject({ conversationId: 'u1c1', turn: 2, historyTokens: 10 + 2 + 11 });
    expect(sent[1]).toEqual(['message 0', ' one two', 'message 1']);
  });
});
