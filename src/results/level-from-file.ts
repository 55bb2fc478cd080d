// Level summaries computed from the stored records instead of records held in memory: requests.jsonl is
// streamed twice (pass 1: the measured window; pass 2: every other figure, metrics/level-accumulator.ts),
// so summarising a level costs memory for its numeric samples only, whatever its request count.
// A broken final line (a killed writer) is skipped and reported; a broken line before it is an error.

import { closeSync, openSync, readSync } from 'node:fs';
import { setImmediate as turn } from 'node:timers/promises';
import { BenchgateError } from '../core/errors.js';
import { LevelAccumulator, type LevelContext } from '../metrics/level-accumulator.js';
import type { LevelSummary } from '../metrics/summary.js';
import {
  type JudgedRecord,
  judgeLevel,
  type LevelValidityContext,
  type Validity,
} from '../metrics/validity.js';
import type { RequestRecord } from '../records/request-record.js';

export interface StreamedRecords {
  /** Records read (every level). */
  count: number;
  /** Set when the last line was incomplete and skipped. */
  warning: string | null;
}

/** Bytes read from the file at a time. */
const READ_BYTES = 1 << 20;

/**
 * The lines of `path`, one at a time, read in fixed 1 MiB blocks into one buffer: each line's text and
 * record are dropped before the next is made, so they die young and a pass over a 20k-request level
 * costs what a pass over a 2k one does (readline's stream and event queue kept records alive long
 * enough to reach the old generation: +18 MB of RSS at 20k requests against +4 MB at 2k). The event
 * loop turns once per block.
 */
async function* linesOf(path: string): AsyncGenerator<string> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(READ_BYTES);
    let carry: Buffer[] = [];
    for (let n = readSync(fd, buf, 0, READ_BYTES, null); n > 0; n = readSync(fd, buf, 0, READ_BYTES, null)) {
      let from = 0;
      for (let nl = buf.indexOf(10, from); nl >= 0 && nl < n; nl = buf.indexOf(10, from)) {
        const line =
          carry.length > 0
            ? Buffer.concat([...carry, buf.subarray(from, nl)]).toString('utf8')
            : buf.toString('utf8', from, nl);
        carry = [];
        from = nl + 1;
        yield line.endsWith('\r') ? line.slice(0, -1) : line;
      }
      if (from < n) carry.push(Buffer.from(buf.subarray(from, n)));
      await turn();
    }
    if (carry.length > 0) yield Buffer.concat(carry).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Calls `each` with every complete record of `path`, in file order, holding one line at a time. */
export async function forEachStoredRecord(
  path: string,
  each: (r: RequestRecord, lineNo: number) => void,
): Promise<StreamedRecords> {
  let lineNo = 0;
  let brokenAt = 0;
  let count = 0;
  try {
    for await (const line of linesOf(path)) {
      lineNo++;
      if (!line.trim()) continue;
      if (brokenAt) break;
      let r: RequestRecord;
      try {
        r = JSON.parse(line) as RequestRecord;
      } catch {
        brokenAt = lineNo;
        continue;
      }
      each(r, lineNo);
      count++;
    }
  } catch (e) {
    if (e instanceof BenchgateError) throw e; // `each` refused a record: its own message names it
    throw new BenchgateError('BG_E_RUN_DIR', `Could not read ${path}: ${(e as Error).message}.`);
  }
  if (brokenAt && brokenAt !== lineNo) {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `Expected one JSON request record per line in ${path}; line ${brokenAt} is not valid JSON.`,
    );
  }
  const warning = brokenAt
    ? `${path}: the last line (${brokenAt}) is incomplete, as a killed run leaves it; using the ${count} complete records before it.`
    : null;
  return { count, warning };
}

/** The summary of level `ctx.levelIndex` from the records stored in `path` (two streamed passes). */
export async function summarizeStoredLevel(path: string, ctx: LevelContext): Promise<LevelSummary> {
  const acc = new LevelAccumulator(ctx);
  const mine = (f: (r: RequestRecord) => void) => (r: RequestRecord) => {
    if (r.levelIndex === ctx.levelIndex) f(r);
  };
  await forEachStoredRecord(
    path,
    mine((r) => acc.observe(r)),
  );
  await forEachStoredRecord(
    path,
    mine((r) => acc.add(r)),
  );
  return acc.finish();
}

/**
 * The level's validity judgement (metrics/validity.ts), made once when it ends: a third streamed pass
 * keeps only the few token-count fields of the level's measured records that the judgement reads.
 */
export async function judgeStoredLevel(
  path: string,
  summary: LevelSummary,
  ctx: LevelValidityContext,
): Promise<Validity> {
  const slim: JudgedRecord[] = [];
  await forEachStoredRecord(path, (r) => {
    if (r.levelIndex !== summary.levelIndex || r.warmup) return;
    slim.push({
      warmup: r.warmup,
      levelIndex: r.levelIndex,
      error: r.error,
      requestedOutputTokens: r.requestedOutputTokens,
      outputTokensServer: r.outputTokensServer,
      outputTokensClient: r.outputTokensClient,
      inputTokensServer: r.inputTokensServer,
      inputTokensClient: r.inputTokensClient,
      turn: r.turn,
    });
  });
  return judgeLevel(summary, slim, ctx);
}
