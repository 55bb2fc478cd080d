// The validity verdict of one load level: valid, suspect or invalid, with the reasons and their evidence.
// Pure: judged from what the run directory already holds (the level summary and the level's measured request
// records, which may be empty for imports). Invalid levels never feed a comparison verdict; suspect ones do,
// with their reasons shown first. Thresholds and their meaning: docs/verdicts.md ("Validity").

import type { RequestRecord } from '../records/request-record.js';
import { cacheSourceText } from './cache-share.js';
import type { LevelSummary } from './summary.js';
import { minSamplesFor, percentileOfKey, supportsPercentile } from './tail-samples.js';

export type ValidityStatus = 'valid' | 'suspect' | 'invalid';

export interface ValidityReason {
  /** `note` reasons are shown but do not change the status. */
  severity: 'invalid' | 'suspect' | 'note';
  /** Stable id, e.g. "output-length", "error-rate", "prompt-tokens". */
  check: string;
  text: string;
}

export interface Validity {
  status: ValidityStatus;
  reasons: ValidityReason[];
}

/** The parts of a request record the judgement reads (so a level can be judged from a slim copy). */
export type JudgedRecord = Pick<
  RequestRecord,
  | 'warmup'
  | 'levelIndex'
  | 'error'
  | 'requestedOutputTokens'
  | 'outputTokensServer'
  | 'outputTokensClient'
  | 'inputTokensServer'
  | 'inputTokensClient'
  | 'turn'
>;

export interface LevelValidityContext {
  /** The plan asked for ignore_eos (every request should get exactly its requested output length). */
  ignoreEos?: boolean;
  /** Speculative decoding is configured on the verified target. */
  speculativeConfigured?: boolean;
  /**
   * The workload shares prompt tokens on purpose (shared_prefix, multi_turn, trace replay): its cached
   * share is what it measures, not a bias.
   */
  workloadShares?: boolean;
}

/** Error share from which a level is invalid (below it, any error makes it suspect). */
export const INVALID_ERROR_RATE = 0.05;
/** Share of requests with the wrong output length from which a level is invalid under ignore_eos. */
export const INVALID_LENGTH_SHARE = 0.05;
/** Mean acceptance length at or below which a configured speculative decoder looks inactive. */
export const INACTIVE_ACCEPTANCE = 1.05;
/**
 * A cached share is material (SUSPECT in a workload not meant to share) from this share of the measured
 * prompt tokens AND this many cached tokens per request on average: a chat template's few shared tokens
 * stay below it, prompts repeated from an earlier run (≈ all of each prompt) are far above it.
 */
export const MATERIAL_CACHED_SHARE = 0.1;
export const MATERIAL_CACHED_TOKENS_PER_REQUEST = 32;

export function statusOf(reasons: readonly ValidityReason[]): ValidityStatus {
  if (reasons.some((r) => r.severity === 'invalid')) return 'invalid';
  if (reasons.some((r) => r.severity === 'suspect')) return 'suspect';
  return 'valid';
}

const pctText = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}

/** Requested vs received output length, per request; ignore_eos not honoured is invalid. */
function outputLength(records: readonly JudgedRecord[], ctx: LevelValidityContext): ValidityReason[] {
  const done = records.filter((r) => r.error === null && r.requestedOutputTokens > 0);
  if (done.length === 0) return [];
  const received = (r: JudgedRecord) => r.outputTokensServer ?? r.outputTokensClient;
  const known = done.filter((r) => received(r) !== null);
  const short = known.filter((r) => (received(r) ?? 0) < r.requestedOutputTokens);
  const long = known.filter((r) => (received(r) ?? 0) > r.requestedOutputTokens);
  const out: ValidityReason[] = [];
  if (long.length > 0) {
    const r = long[0];
    out.push({
      severity: 'invalid',
      check: 'output-length',
      text: `max_tokens not honoured: ${long.length} of ${known.length} requests got more tokens than requested (e.g. ${received(r)} for ${r.requestedOutputTokens}).`,
    });
  }
  if (short.length > 0) {
    const share = short.length / known.length;
    const gotMedian = median(short.map((r) => received(r) ?? 0));
    const askedMedian = median(short.map((r) => r.requestedOutputTokens));
    const what = `${short.length} of ${known.length} requests (${pctText(share)}) got fewer output tokens than requested (median ${gotMedian} of ${askedMedian})`;
    if (ctx.ignoreEos)
      out.push({
        severity: share >= INVALID_LENGTH_SHARE ? 'invalid' : 'suspect',
        check: 'output-length',
        text: `ignore_eos not honoured: ${what}.`,
      });
    else
      out.push({
        severity: 'suspect',
        check: 'output-length',
        text: `Output length not honoured: ${what}; the workload is shorter than planned.`,
      });
  }
  return out;
}

/** Server-reported vs client-requested prompt length: the chat template typically adds a few tokens. */
function promptTokens(records: readonly JudgedRecord[], level: LevelSummary): ValidityReason[] {
  const both = records.filter((r) => r.inputTokensServer !== null && r.inputTokensClient !== null);
  const differ = both.filter((r) => r.inputTokensServer !== r.inputTokensClient);
  if (differ.length === 0) {
    const n = level.tokenReconciliation.inputMismatches;
    return n > 0
      ? [
          {
            severity: 'note',
            check: 'prompt-tokens',
            text: `Server and client prompt token counts differ in ${n} of ${level.tokenReconciliation.inputCompared ?? '?'} requests.`,
          },
        ]
      : [];
  }
  const deltas = differ.map((r) => (r.inputTokensServer ?? 0) - (r.inputTokensClient ?? 0));
  const d = median(deltas);
  const example =
    differ.find((r) => (r.inputTokensServer ?? 0) - (r.inputTokensClient ?? 0) === d) ?? differ[0];
  const client = example.inputTokensClient ?? 0;
  const relative = client > 0 ? Math.abs(d) / client : 1;
  // a chat template adds a few tokens per message: a multi-turn turn sends 2·turn − 1 of them
  const messages = example.turn === undefined ? 1 : 2 * example.turn - 1;
  const small = Math.abs(d) <= 16 * messages || relative <= 0.05;
  return [
    {
      severity: small ? 'note' : 'suspect',
      check: 'prompt-tokens',
      text: `Prompt length: the server counts ${example.inputTokensServer} prompt tokens for a requested ${client} (${d > 0 ? '+' : ''}${d}${small && d > 0 ? ', e.g. the chat template' : ''}) in ${differ.length} of ${both.length} requests.`,
    },
  ];
}

/** Server vs client output token counts. */
function outputCounts(level: LevelSummary, records: readonly JudgedRecord[]): ValidityReason[] {
  const { compared, outputMismatches } = level.tokenReconciliation;
  if (outputMismatches === 0) return [];
  const differ = records.filter(
    (r) =>
      r.outputTokensServer !== null &&
      r.outputTokensClient !== null &&
      r.outputTokensServer !== r.outputTokensClient,
  );
  const eg = differ[0];
  return [
    {
      severity: 'suspect',
      check: 'output-tokens',
      text: `Server and client output token counts disagree in ${outputMismatches} of ${compared} requests${eg ? ` (e.g. server ${eg.outputTokensServer}, client ${eg.outputTokensClient})` : ''}; metrics use the server's count.`,
    },
  ];
}

function errors(level: LevelSummary): ValidityReason[] {
  const { completed, failed } = level.requests;
  const total = completed + failed;
  if (total === 0)
    return [{ severity: 'invalid', check: 'no-requests', text: 'No measured request completed.' }];
  if (completed === 0)
    return [{ severity: 'invalid', check: 'no-requests', text: `All ${failed} measured requests failed.` }];
  if (failed === 0) return [];
  const rate = failed / total;
  const codes = Object.entries(level.errorsByCode)
    .map(([c, n]) => `${c} ×${n}`)
    .join(', ');
  return [
    {
      severity: rate >= INVALID_ERROR_RATE ? 'invalid' : 'suspect',
      check: 'error-rate',
      text: `${failed} of ${total} requests failed (${pctText(rate)}${codes ? `: ${codes}` : ''}).`,
    },
  ];
}

function speculative(level: LevelSummary, ctx: LevelValidityContext): ValidityReason[] {
  if (!ctx.speculativeConfigured) return [];
  const a = level.speculative?.acceptanceLength;
  if (a === undefined || a === null || !Number.isFinite(a))
    return [
      {
        severity: 'note',
        check: 'acceptance',
        text: 'Speculative decoding is configured but no acceptance length was recorded.',
      },
    ];
  if (a <= INACTIVE_ACCEPTANCE)
    return [
      {
        severity: 'suspect',
        check: 'acceptance',
        text: `Speculative decoding is configured but the mean acceptance length is ${a.toFixed(2)} tokens per step (≈ 1: drafts rejected or not running).`,
      },
    ];
  return [];
}

/** Prompt tokens served from the prefix cache in a workload not meant to share: the numbers read fast. */
function prefixCache(level: LevelSummary, ctx: LevelValidityContext): ValidityReason[] {
  const c = level.cache;
  if (!c || c.share === null || c.cachedTokens === null || ctx.workloadShares) return [];
  const requests = c.source === 'per-request' ? c.reporting : level.requests.completed;
  const perRequest = requests > 0 ? c.cachedTokens / requests : 0;
  if (c.share < MATERIAL_CACHED_SHARE || perRequest < MATERIAL_CACHED_TOKENS_PER_REQUEST) return [];
  return [
    {
      severity: 'suspect',
      check: 'prefix-cache',
      text: `Prefix cache: ${(c.share * 100).toFixed(1)}% of the measured prompt tokens (${Math.round(perRequest)} per request) were served from the server's cache (${cacheSourceText(c)}) in a workload not meant to share prompts; likely cause: the same prompts were sent to this server before (an earlier run with the same seed and salt, a prompt file repeated, or a level longer than its prompt pool of 2048 sending them again), so TTFT and throughput read better than for unseen prompts.`,
    },
  ];
}

/** Percentiles the summary holds but the sample count cannot support: noted, and shown as n/a. */
function tails(level: LevelSummary): ValidityReason[] {
  const n = level.ttftMs?.count ?? level.requests.completed;
  const keys = Object.keys(level.ttftMs?.percentiles ?? level.e2eMs?.percentiles ?? {});
  const short = keys
    .map(percentileOfKey)
    .filter((p): p is number => p !== null && !supportsPercentile(n, p))
    .sort((a, b) => a - b);
  if (short.length === 0) return [];
  return [
    {
      severity: 'note',
      check: 'samples',
      text: `Too few samples for ${short.map((p) => `p${p} (≥${minSamplesFor(p)} needed)`).join(', ')}: ${n} requests; shown as n/a.`,
    },
  ];
}

/** The level's validity verdict from its summary and its measured records (warmup ones are ignored). */
export function judgeLevel(
  level: LevelSummary,
  records: readonly JudgedRecord[],
  ctx: LevelValidityContext = {},
): Validity {
  const measured = records.filter((r) => !r.warmup && r.levelIndex === level.levelIndex);
  const reasons: ValidityReason[] = [];
  if (!level.validity.valid)
    reasons.push({
      severity: 'invalid',
      check: 'recorded',
      text: level.validity.reasons.join('; ') || 'Marked invalid when it was measured (restart or drift).',
    });
  if (level.client.clientLimited)
    reasons.push({
      severity: 'invalid',
      check: 'client-limited',
      text: `Client-limited: ${level.client.reason ?? 'the client, not the server, was the bottleneck'}.`,
    });
  if (level.client.timingNoise)
    reasons.push({
      severity: 'suspect',
      check: 'timing-noise',
      text: `Timing noise: ${level.client.timingNoise}.`,
    });
  reasons.push(...errors(level));
  reasons.push(...outputLength(measured, ctx));
  reasons.push(...outputCounts(level, measured));
  reasons.push(...promptTokens(measured, level));
  reasons.push(...speculative(level, ctx));
  reasons.push(...prefixCache(level, ctx));
  reasons.push(...tails(level));
  return { status: statusOf(reasons), reasons };
}
