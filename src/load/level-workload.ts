// What one level sends, by workload kind: the prompts in send order (unmeasured ones first), how many
// of them are unmeasured (warmup, and the shared-prefix priming requests), the arrival schedule when
// the workload brings its own (trace replay), and the prefix-cache hit rate the workload should give.
// For multi-turn it also holds the users' conversations, whose turns are built as they are sent.
// The session builds this before each level; nothing here talks to the target.

import { BenchgateError } from '../core/errors.js';
import type { Plan } from '../plan/schema.js';
import type { LevelKey } from '../records/level-key.js';
import { Conversations } from './conversation.js';
import { buildPrompts, type PromptItem } from './prompts.js';
import { buildSharedPrefixPrompts } from './shared-prefix.js';
import type { PromptTokenizer } from './tokenizer.js';
import { readTrace, replayOffsetsMs, tracePrompts } from './trace.js';

export interface LevelWorkload {
  /** Prompts in send order; the level cycles through them. */
  prompts: PromptItem[];
  /** Unmeasured requests sent first and drained before measuring (warmup + priming). */
  unmeasured: number;
  /** Measured requests (null: the duration bounds the level). */
  requests: number | null;
  /** Send offsets (ms from the level start) when the workload brings its arrival schedule. */
  scheduleMs: number[] | null;
  /** The level key to record (a trace level is its mean offered rate). */
  level: LevelKey;
  /** Shared prefix: the configured (expected) prefix-cache hit rate. */
  expectedHitRate: number | null;
  /** Multi-turn: the users' conversations (each send is a turn built from its history); null otherwise. */
  conversations: Conversations | null;
}

export interface LevelWorkloadArgs {
  plan: Plan;
  /** The plan's level value (concurrency, rate, or a trace's speed factor) and its key. */
  value: number;
  level: LevelKey;
  levelIndex: number;
  /** Measured requests as the load section says (null: duration-bound). */
  requests: number | null;
  poolSize: number;
  tokenizer: PromptTokenizer;
}

type Base = Omit<LevelWorkload, 'prompts'>;

/** Shared prefix: one priming request per group first, then warmup and measured requests from the same groups. */
async function sharedPrefixWorkload(a: LevelWorkloadArgs, base: Base): Promise<LevelWorkload> {
  const w = a.plan.workload;
  const sp = w.shared_prefix!;
  const warmup = a.plan.load.warmup;
  const built = await buildSharedPrefixPrompts(
    {
      groups: sp.groups,
      prefixTokens: sp.prefix_tokens,
      suffixTokens: w.input_tokens,
      outputTokens: w.output_tokens,
      seed: w.seed,
    },
    Math.max(1, a.poolSize - warmup),
    a.levelIndex,
    a.tokenizer,
  );
  return {
    ...base,
    prompts: [...built.priming, ...built.measured],
    unmeasured: sp.groups + warmup,
    expectedHitRate: sp.expected_hit_rate ?? built.expectedHitRate,
  };
}

/** Trace replay: the trace's arrivals at the level's speed factor, recorded as its mean offered rate. */
async function traceWorkload(a: LevelWorkloadArgs, base: Base): Promise<LevelWorkload> {
  const w = a.plan.workload;
  const trace = w.trace!;
  if (a.plan.load.kind !== 'rate')
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      'workload.kind trace replays arrivals open loop: set load.kind: rate (each level is a speed factor).',
    );
  const all = await readTrace(trace.path, trace.format);
  const entries = a.plan.load.requests ? all.slice(0, a.plan.load.requests) : all;
  const scheduleMs = replayOffsetsMs(entries, a.value);
  const spanS = (scheduleMs[scheduleMs.length - 1] ?? 0) / 1000;
  const rate = spanS > 0 ? (entries.length - 1) / spanS : entries.length;
  return {
    ...base,
    prompts: tracePrompts(entries, trace.block_tokens, w.seed),
    unmeasured: 0,
    requests: entries.length,
    scheduleMs,
    level: {
      kind: 'rate',
      value: Math.round(rate * 1000) / 1000,
      maxConcurrency: a.plan.load.max_concurrency ?? null,
      speedFactor: a.value,
    },
  };
}

/** Multi-turn: closed-loop users whose turns are built from their history as they are sent. */
async function multiTurnWorkload(a: LevelWorkloadArgs, base: Base): Promise<LevelWorkload> {
  const w = a.plan.workload;
  // the schema and plan checks refuse these; a flag or a probe could still bring them here
  if (a.plan.target.api !== 'chat')
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `workload.kind multi_turn sends each turn's history as chat messages: set target.api: chat (found ${a.plan.target.api}).`,
    );
  if (a.level.kind !== 'concurrency')
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      'workload.kind multi_turn runs closed loop (each stream is one user): set load.kind: concurrency.',
    );
  const messages = await buildPrompts(
    { dataset: 'random', inputTokens: w.input_tokens, outputTokens: w.output_tokens, seed: w.seed },
    a.poolSize,
    a.levelIndex,
    a.tokenizer,
  );
  const conversations = new Conversations({
    turns: w.multi_turn!.turns,
    thinkTimeMs: w.multi_turn!.think_time_ms,
    messages,
    seed: w.seed,
    levelIndex: a.levelIndex,
  });
  return { ...base, prompts: messages, conversations };
}

export async function buildLevelWorkload(a: LevelWorkloadArgs): Promise<LevelWorkload> {
  const w = a.plan.workload;
  const base: Base = {
    unmeasured: a.plan.load.warmup,
    requests: a.requests,
    scheduleMs: null,
    level: a.level,
    expectedHitRate: null,
    conversations: null,
  };
  if (w.kind === 'shared_prefix' && w.shared_prefix) return sharedPrefixWorkload(a, base);
  if (w.kind === 'trace' && w.trace) return traceWorkload(a, base);
  if (w.kind === 'multi_turn' && w.multi_turn) return multiTurnWorkload(a, base);
  const prompts = await buildPrompts(
    {
      dataset: w.dataset,
      inputTokens: w.input_tokens,
      outputTokens: w.output_tokens,
      seed: w.seed,
      outputLengths: w.kind === 'sharegpt' ? w.output_lengths : 'fixed',
    },
    a.poolSize,
    a.levelIndex,
    a.tokenizer,
  );
  return { ...base, prompts };
}
