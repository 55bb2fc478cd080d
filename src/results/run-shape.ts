// The shape a stored run must have before a report reads it: the fields of manifest.json, summary.json,
// level-NN.json and requests.jsonl that reports read without asking. A file edited by hand, damaged or
// written by something else is refused naming the file and the key (BG_E_RUN_DIR), never left to fail
// later as an internal error. Numbers may be null: JSON writes NaN (a figure not measured) as null.

import { z } from 'zod';
import { BenchgateError } from '../core/errors.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { RequestRecord } from '../records/request-record.js';
import type { Manifest } from './layout.js';

const num = z.number().nullable();
const dist = z
  .object({ count: num.optional(), mean: num.optional(), percentiles: z.record(z.string(), num) })
  .nullable()
  .optional();

const levelSchema = z.object({
  levelIndex: z.number().int().nonnegative(),
  level: z.object({ kind: z.enum(['concurrency', 'rate']), value: num, maxConcurrency: num.optional() }),
  windowS: num,
  requests: z.object({ completed: num, failed: num }),
  ttftMs: dist,
  ttftContentMs: dist,
  chunkItlMs: dist,
  tokenItlMs: dist,
  tpotMs: dist,
  e2eMs: dist,
  e2eInclQueueMs: dist,
  queueWaitMs: dist,
  throughput: z.object({
    requestsPerS: num,
    inputTokensPerS: num,
    outputTokensPerS: num,
    totalTokensPerS: num,
  }),
  achievedConcurrency: num.optional(),
  goodput: z.object({ requestsPerS: num, fraction: num }).nullable().optional(),
  errorsByCode: z.record(z.string(), num).optional(),
  tokenReconciliation: z.object({ compared: num, outputMismatches: num, inputMismatches: num }),
  speculative: z.object({ acceptanceLength: num }).nullable().optional(),
  client: z.object({ clientLimited: z.boolean() }),
  validity: z.object({ valid: z.boolean(), reasons: z.array(z.string()) }),
});

const text = z.string().nullable().optional();
const manifestSchema = z.object({
  name: z.string().optional(),
  plan: z
    .object({ name: text, varies: z.array(z.unknown()).optional() })
    .nullable()
    .optional(),
  verifiedTarget: z.object({ engine: text, model: text }).nullable().optional(),
  checkpoint: z
    .object({ findings: z.array(z.object({ id: z.string(), status: z.string() })) })
    .nullable()
    .optional(),
  forced: z
    .object({ failedFindingIds: z.array(z.string()) })
    .nullable()
    .optional(),
  source: z.object({ tool: z.string() }).optional(),
});

/** "levels[2].throughput is null where an object belongs" from a zod issue. */
function issueText(issue: z.core.$ZodIssue, prefix: string): string {
  const path = [prefix, ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))]
    .join('')
    .replace(/^\./, '');
  return `${path || '(the document)'}: ${issue.message}`;
}

function check<T>(schema: z.ZodType, value: unknown, file: string, what: string, prefix = ''): T {
  const r = schema.safeParse(value);
  if (r.success) return value as T;
  throw new BenchgateError(
    'BG_E_RUN_DIR',
    `Expected ${file} to hold ${what}; ${issueText(r.error.issues[0], prefix)}.`,
  );
}

export function checkManifest(v: unknown, file: string): Manifest {
  return check<Manifest>(manifestSchema, v, file, 'a benchgate manifest');
}

export function checkLevels(v: unknown[], file: string, prefix: string): LevelSummary[] {
  v.forEach((l, i) => {
    check(levelSchema, l, file, 'benchgate level summaries', `${prefix}[${i}]`);
  });
  return v as LevelSummary[];
}

export function checkLevel(v: unknown, file: string): LevelSummary {
  return check<LevelSummary>(levelSchema, v, file, 'a benchgate level summary');
}

const isNumberList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'number');

/** The record fields every metric reads; the line number names a broken one. */
export function checkRecord(v: unknown, file: string, line: number): RequestRecord {
  const r = v as Partial<RequestRecord> | null;
  const wrong =
    r === null || typeof r !== 'object' || Array.isArray(r)
      ? 'is not a JSON object'
      : typeof r.levelIndex !== 'number'
        ? 'has no numeric levelIndex'
        : !isNumberList(r.chunkMs)
          ? 'has no chunkMs list of numbers'
          : !isNumberList(r.chunkTokens)
            ? 'has no chunkTokens list of numbers'
            : typeof r.sentMs !== 'number'
              ? 'has no numeric sentMs'
              : null;
  if (wrong)
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `Expected one request record per line in ${file}; line ${line} ${wrong}.`,
    );
  return r as RequestRecord;
}
