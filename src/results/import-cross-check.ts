// An imported result checked against itself: the counts it states against the per-request lists it
// holds, and the throughputs it states against its own totals over its duration. The tools define their
// throughputs as totals / duration and their counts as the requests they list, so a figure that
// contradicts its own record is either refused (a total that cannot be: negative, fractional) or
// replaced by the one the record gives, with a warning naming the key, its line and the figure kept.

import type { LevelSummary } from '../metrics/summary.js';
import type { ResultFields } from './import-fields.js';
import { requestLists } from './import-records.js';
import type { StatedTotals } from './layout.js';

/** A stated throughput and totals / duration may differ by this share (the tables print 2 decimals). */
const RATE_TOLERANCE = 0.02;

const fmt = (v: number): string => (Number.isInteger(v) ? String(v) : v.toFixed(2));

/** Counts from the per-request lists (null without lists): requests listed, and those without an error. */
function listedCounts(f: ResultFields): { listed: number; ok: number | null } | null {
  const d = requestLists(f);
  const any = d.ttfts ?? d.outputLens ?? d.inputLens ?? d.errors;
  if (!any) return null;
  return { listed: any.length, ok: d.errors ? d.errors.filter((e) => e === '').length : null };
}

/** `completed` (and `failed`) against the requests the lists hold; the lists' counts are kept. */
function countProblems(f: ResultFields, level: LevelSummary): string[] {
  const stated = f.count('completed');
  const lists = listedCounts(f);
  if (stated === null || lists === null) return [];
  const req = level.requests;
  const ok = lists.ok ?? Math.min(stated, lists.listed);
  const failed = lists.listed - ok;
  const statedFailed = f.count('failed');
  const out: string[] = [];
  if (stated !== ok)
    out.push(
      `${f.where('completed')}: "completed" says ${stated} but the per-request lists hold ${lists.listed} requests (${ok} completed, ${failed} failed); keeping the lists' counts.`,
    );
  if (statedFailed !== null && statedFailed !== failed)
    out.push(
      `${f.where('failed')}: "failed" says ${statedFailed} but the per-request lists hold ${failed} failed requests; keeping the lists' count.`,
    );
  if (out.length > 0) {
    req.completed = ok;
    req.failed = failed;
    level.errorsByCode = failed > 0 ? { imported: failed } : {};
  }
  return out;
}

interface RatePair {
  rateKey: string;
  totalKey: string;
  unit: string;
  apply(level: LevelSummary, v: number): void;
}

const PAIRS: RatePair[] = [
  {
    rateKey: 'output_throughput',
    totalKey: 'total_output_tokens',
    unit: 'tok/s',
    apply: (l, v) => {
      l.throughput.outputTokensPerS = v;
    },
  },
  {
    rateKey: 'input_throughput',
    totalKey: 'total_input_tokens',
    unit: 'tok/s',
    apply: (l, v) => {
      l.throughput.inputTokensPerS = v;
    },
  },
  {
    rateKey: 'request_throughput',
    totalKey: 'completed',
    unit: 'req/s',
    apply: (l, v) => {
      l.throughput.requestsPerS = v;
    },
  },
];

/** Each stated throughput against total / duration; the figure from the totals is kept when they differ. */
function rateProblems(f: ResultFields, level: LevelSummary): string[] {
  const durationS = f.amount('duration');
  if (durationS === null || durationS <= 0) return [];
  // a printed duration is rounded to 0.01 s: allow what that rounding can move the rate by
  const tolerance = RATE_TOLERANCE + (f.raw.printed ? 0.005 / durationS : 0);
  const out: string[] = [];
  for (const p of PAIRS) {
    const stated = f.amount(p.rateKey);
    const total = p.totalKey === 'completed' ? level.requests.completed : f.count(p.totalKey);
    if (stated === null || total === null || !Number.isFinite(total)) continue;
    const derived = total / durationS;
    if (Math.abs(stated - derived) <= tolerance * Math.max(derived, stated)) continue;
    out.push(
      `${f.where(p.rateKey)}: "${p.rateKey}" says ${fmt(stated)} ${p.unit} but its own ${p.totalKey} / duration (${fmt(total)} / ${fmt(durationS)} s, lines ${f.raw.lineOf(p.totalKey)} and ${f.raw.lineOf('duration')}) is ${fmt(derived)} ${p.unit}; keeping ${fmt(derived)}, the figure its counts give.`,
    );
    p.apply(level, derived);
  }
  const t = level.throughput;
  t.totalTokensPerS = t.inputTokensPerS + t.outputTokensPerS;
  out.push(...totalRateProblem(f, level, tolerance));
  return out;
}

/** The total token throughput the tool printed: kept when it agrees with input + output, else refused for them. */
function totalRateProblem(f: ResultFields, level: LevelSummary, tolerance: number): string[] {
  const key = f.has('total_throughput') ? 'total_throughput' : 'total_token_throughput';
  const stated = f.amount(key);
  const t = level.throughput;
  const sum = t.totalTokensPerS;
  if (stated === null) return [];
  if (!Number.isFinite(sum) || Math.abs(stated - sum) <= tolerance * Math.max(sum, stated)) {
    t.totalTokensPerS = stated;
    return [];
  }
  return [
    `${f.where(key)}: "${key}" says ${fmt(stated)} tok/s but input + output throughput is ${fmt(sum)} tok/s; keeping ${fmt(sum)}.`,
  ];
}

/** The totals the result states (token counts, total token throughput), or null when it states none. */
export function statedTotals(f: ResultFields, levelIndex: number): StatedTotals | null {
  const totals: StatedTotals = {
    levelIndex,
    inputTokens: f.count('total_input_tokens'),
    outputTokens: f.count('total_output_tokens'),
    totalTokensPerS: f.amount('total_throughput') ?? f.amount('total_token_throughput'),
  };
  const { inputTokens, outputTokens, totalTokensPerS } = totals;
  return inputTokens === null && outputTokens === null && totalTokensPerS === null ? null : totals;
}

/**
 * Cross-checks one mapped result: refuses totals that cannot be (through their typed reads) and returns
 * the warnings for figures its own record contradicts, having put the record's figure in `level`.
 */
export function crossCheckResult(f: ResultFields, level: LevelSummary): string[] {
  for (const k of ['total_input_tokens', 'total_output_tokens', 'total_output_tokens_retokenized'])
    f.count(k);
  const burstiness = f.value('burstiness');
  if (
    burstiness !== undefined &&
    !(typeof burstiness === 'number' && Number.isFinite(burstiness) && burstiness > 0)
  )
    throw f.wrong('burstiness', 'a number > 0 (1 is Poisson)', burstiness);
  return [...countProblems(f, level), ...rateProblems(f, level)];
}
