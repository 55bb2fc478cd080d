// slo-search.json in a run directory: the outcome of a load.kind slo_search run (the highest load meeting
// the SLOs, the bracket around it and every probe in the order run), written by the session's search
// driver and read back by reports, compare and the matrix. Reading fails closed: a file that is there but
// cannot be read or is not in this shape is `unreadable` with an excerpt, never a crash and never a guess.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ReadResult, readUnknown, readUnreadable, readValue } from '../core/read-result.js';
import { writeJsonAtomic } from './run-store.js';

import { SLO_SEARCH_FILE, SLO_SEARCH_SCHEMA, type SloSearchRecord } from './slo-search-record.js';

export { SLO_SEARCH_FILE, SLO_SEARCH_SCHEMA, type SloSearchRecord };

export function writeSloSearchRecord(dir: string, record: Omit<SloSearchRecord, 'schema'>): void {
  writeJsonAtomic(join(dir, SLO_SEARCH_FILE), { schema: SLO_SEARCH_SCHEMA, ...record });
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const numOrNull = (v: unknown): boolean => v === null || num(v);
const STOPS = ['precision', 'max-passed', 'min-failed', 'max-probes', 'inconclusive', 'stalled'];
const OUTCOMES = [undefined, 'pass', 'fail', 'inconclusive'];

function isEvidence(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return (
    (e.unit === 'req/s' || e.unit === 'concurrency') &&
    [e.offered, e.achieved, e.samples, e.met, e.sent].every(num) &&
    numOrNull(e.floor) &&
    typeof e.sustained === 'boolean'
  );
}

function isInterval(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const i = v as Record<string, unknown>;
  return (
    [i.estimate, i.low, i.high].every(numOrNull) &&
    [i.confidence, i.iterations, i.probes].every(num) &&
    typeof i.lowCensored === 'boolean' &&
    typeof i.highCensored === 'boolean'
  );
}

/** Why `doc` is not a search record, or null when it is one. */
function shapeProblem(doc: unknown): string | null {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'not a JSON object';
  const d = doc as Record<string, unknown>;
  if (d.schema !== undefined && d.schema !== SLO_SEARCH_SCHEMA)
    return `schema is ${JSON.stringify(d.schema)}, expected "${SLO_SEARCH_SCHEMA}"`;
  if (d.over !== 'rate' && d.over !== 'concurrency') return '"over" is neither "rate" nor "concurrency"';
  if (!num(d.requiredShare) || !num(d.precision)) return '"requiredShare" or "precision" is not a number';
  if (!numOrNull(d.best) || !numOrNull(d.firstFail)) return '"best" or "firstFail" is not a number or null';
  if (typeof d.slo !== 'object' || d.slo === null) return '"slo" is not an object';
  if (!STOPS.includes(d.stoppedBy as string)) return `"stoppedBy" is not one of ${STOPS.join(', ')}`;
  if (d.interval !== undefined && !isInterval(d.interval))
    return '"interval" is not { estimate, low, high, lowCensored, highCensored, confidence, iterations, probes }';
  if (!Array.isArray(d.probes)) return '"probes" is not a list';
  for (const [i, p] of d.probes.entries()) {
    const q = p as Record<string, unknown>;
    if (
      typeof q !== 'object' ||
      q === null ||
      !num(q.value) ||
      !num(q.share) ||
      typeof q.passed !== 'boolean' ||
      !OUTCOMES.includes(q.outcome as string | undefined)
    )
      return `probe ${i + 1} is not { value, share, passed, outcome? }`;
    if (q.evidence !== undefined && !isEvidence(q.evidence))
      return `probe ${i + 1} has evidence that is not { offered, achieved, samples, met, floor, … }`;
  }
  return null;
}

/**
 * The run's search outcome: a value; unknown when the run has no slo-search.json (not a search, or a
 * search killed before it wrote one); unreadable (with an excerpt) when the file is there but is not one.
 */
export async function readSloSearchRecord(dir: string): Promise<ReadResult<SloSearchRecord>> {
  const path = join(dir, SLO_SEARCH_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return readUnknown(`no ${SLO_SEARCH_FILE} in ${dir}`);
    return readUnreadable(`could not read ${path}: ${(e as Error).message}`, '');
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return readUnreadable(`${path} is not valid JSON`, text);
  }
  const problem = shapeProblem(doc);
  if (problem) return readUnreadable(`${path} is not an SLO search record: ${problem}`, text);
  const rec = doc as SloSearchRecord;
  return readValue({ ...rec, preset: rec.preset ?? null });
}
