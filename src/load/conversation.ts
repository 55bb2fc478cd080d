// Multi-turn conversations (workload.kind multi_turn): each closed-loop stream of a level is one user
// holding a conversation of T turns. A turn sends the whole history (every earlier user message and the
// reply actually received, verbatim) plus a new user message; after the reply the user thinks, then sends
// the next turn; after T turns, or a failed turn, the user starts a new conversation at once.
// This module keeps the per-user state. The level runner only asks when a stream's next turn is due
// (`dueAtMs`: think time is scheduling, so a late send shows as queue time, never as think time), and
// the session sends what `send` builds. The new user messages are the level's seeded pool taken in
// send order, so no message is sent twice until the pool (warmup + requests, at most the session's
// prompt pool) is used up, whichever user sends faster; think times are seeded per user, so a user's
// waits do not depend on how the others' replies interleave.

import { performance } from 'node:perf_hooks';
import { gamma, type Rng, seededRng } from '../core/seeded-random.js';
import type { ChatMessage } from '../engines/types.js';
import type { ThinkTime } from '../plan/schema.js';
import { outputTokens, type RequestRecord } from '../records/request-record.js';
import type { SendArgs } from './level-runner.js';
import type { PromptItem } from './prompts.js';

export interface ConversationSpec {
  /** Turns per conversation. */
  turns: number;
  thinkTimeMs: ThinkTime;
  /** New user messages (with their token counts and reply lengths), taken in send order. */
  messages: PromptItem[];
  seed: number;
  levelIndex: number;
}

/** One turn as sent. */
export interface Turn {
  user: number;
  conversationId: string;
  /** 1-based position in the conversation. */
  turn: number;
  /** The whole history, ending with this turn's new user message. */
  messages: ChatMessage[];
  /** This turn's new user message (its reply length is what the turn asks for). */
  message: PromptItem;
  /** Tokens of the whole history sent (client count; earlier replies by the server's output count). */
  historyTokens: number;
}

interface UserState {
  /** Conversations this user started. */
  conversations: number;
  /** Turns sent in the current conversation (0: none yet, a new one starts). */
  turn: number;
  messages: ChatMessage[];
  historyTokens: number;
  /** Monotonic ms the next turn is due (the last reply's end plus the think time); 0: at once. */
  dueAtMs: number;
  thinkRng: Rng;
}

/** One think time draw in ms. */
export function drawThinkMs(spec: ThinkTime, rng: Rng): number {
  if (typeof spec === 'number') return spec;
  if ('fixed' in spec) return spec.fixed;
  if ('uniform' in spec) return spec.uniform[0] + rng() * (spec.uniform[1] - spec.uniform[0]);
  return gamma(rng, 1, spec.exponential); // shape 1: exponential with that mean
}

export class Conversations {
  private readonly users = new Map<number, UserState>();
  /** New user messages taken so far (all users). */
  private taken = 0;

  constructor(private readonly spec: ConversationSpec) {}

  private user(u: number): UserState {
    let s = this.users.get(u);
    if (!s) {
      const seed = this.spec.seed * 1_000_003 + this.spec.levelIndex * 7919 + u * 104_729 + 5;
      s = {
        conversations: 0,
        turn: 0,
        messages: [],
        historyTokens: 0,
        dueAtMs: 0,
        thinkRng: seededRng(seed),
      };
      this.users.set(u, s);
    }
    return s;
  }

  /** Monotonic ms the user's next turn is due: after the think time following its last reply; 0 = at once. */
  dueAtMs(u: number): number {
    return this.user(u).dueAtMs;
  }

  /** The user's next turn: its history plus a new message (a new conversation after the last turn or a failure). */
  nextTurn(u: number): Turn {
    const s = this.user(u);
    if (s.turn === 0 || s.turn >= this.spec.turns) {
      s.conversations++;
      s.turn = 0;
      s.messages = [];
      s.historyTokens = 0;
    }
    const pool = this.spec.messages;
    const message = pool[this.taken++ % pool.length];
    s.turn++;
    s.messages.push({ role: 'user', content: message.prompt });
    s.historyTokens += message.inputTokens;
    return {
      user: u,
      conversationId: `u${u}c${s.conversations}`,
      turn: s.turn,
      messages: [...s.messages],
      message,
      historyTokens: s.historyTokens,
    };
  }

  /**
   * The turn's outcome. A reply joins the history verbatim and the think time starts at `endMs`; a
   * failed turn ends the conversation (there is no reply to continue from) and the next starts at once.
   */
  finishTurn(t: Turn, rec: RequestRecord, reply: string, endMs: number): void {
    const s = this.user(t.user);
    if (rec.error !== null) {
      s.turn = 0;
      s.dueAtMs = 0;
      return;
    }
    s.messages.push({ role: 'assistant', content: reply });
    s.historyTokens += outputTokens(rec);
    s.dueAtMs = s.turn >= this.spec.turns ? 0 : endMs + drawThinkMs(this.spec.thinkTimeMs, s.thinkRng);
  }

  /**
   * Sends the next turn of the stream's user through `transmit` (which streams the request and appends
   * the reply's text to `reply`), then records the turn on the record and in the user's history.
   */
  async send(
    a: Pick<SendArgs, 'stream'>,
    transmit: (t: Turn, reply: string[]) => Promise<RequestRecord>,
  ): Promise<RequestRecord> {
    const t = this.nextTurn(a.stream ?? 0);
    const reply: string[] = [];
    const rec = await transmit(t, reply);
    this.finishTurn(t, rec, reply.join(''), performance.now());
    rec.conversationId = t.conversationId;
    rec.turn = t.turn;
    rec.historyTokens = t.historyTokens;
    return rec;
  }
}
