// Follows one running run directory as its files grow: requests.jsonl is read from where the last poll
// stopped (complete lines only), the records of the level being measured are accumulated (throughput,
// TTFT and token-ITL percentiles, errors by code), and the files written at each level's end (level
// summaries with their drift verdicts, server telemetry) are read as they appear. The run files are the
// only source: what the dashboard shows live is what the run has written.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { percentile } from '../metrics/percentile.js';
import { pushTokenItlMs } from '../metrics/request-latency.js';
import { supportsPercentile } from '../metrics/tail-samples.js';
import { outputTokens, type RequestRecord } from '../records/request-record.js';

/** Most bytes read from requests.jsonl per poll (a huge file catches up over several polls). */
const MAX_READ_BYTES = 8 * 1024 * 1024;
/** Samples kept for the running percentiles (the newest). */
const MAX_SAMPLES = 20_000;

export interface LevelProgress {
  levelIndex: number;
  done: number;
  errors: number;
  errorsByCode: Record<string, number>;
  outputTokens: number;
  firstSentMs: number | null;
  lastEndMs: number | null;
  ttftMs: number[];
  tokenItlMs: number[];
}

export interface LevelFigures {
  levelIndex: number;
  done: number;
  errors: number;
  errorsByCode: Record<string, number>;
  outputTokensPerS: number | null;
  ttftP50Ms: number | null;
  ttftP99Ms: number | null;
  itlP50Ms: number | null;
  itlP99Ms: number | null;
  /** Samples behind the TTFT and ITL percentiles: a percentile is null until they reach its floor. */
  ttftSamples: number;
  itlSamples: number;
  /** Seconds from the level's first measured send to its latest end. */
  elapsedS: number;
}

const newLevel = (levelIndex: number): LevelProgress => ({
  levelIndex,
  done: 0,
  errors: 0,
  errorsByCode: {},
  outputTokens: 0,
  firstSentMs: null,
  lastEndMs: null,
  ttftMs: [],
  tokenItlMs: [],
});

function add(l: LevelProgress, r: RequestRecord): void {
  l.done++;
  l.firstSentMs = l.firstSentMs === null ? r.sentMs : Math.min(l.firstSentMs, r.sentMs);
  l.lastEndMs = l.lastEndMs === null ? r.endMs : Math.max(l.lastEndMs, r.endMs);
  if (r.error) {
    l.errors++;
    l.errorsByCode[r.error.code] = (l.errorsByCode[r.error.code] ?? 0) + 1;
    return;
  }
  l.outputTokens += outputTokens(r);
  if (r.chunkMs.length > 0) l.ttftMs.push(r.chunkMs[0] - r.sentMs);
  pushTokenItlMs(r, l.tokenItlMs);
  if (l.ttftMs.length > MAX_SAMPLES) l.ttftMs.splice(0, l.ttftMs.length - MAX_SAMPLES);
  if (l.tokenItlMs.length > MAX_SAMPLES * 8) l.tokenItlMs.splice(0, l.tokenItlMs.length - MAX_SAMPLES * 8);
}

/** The percentile once the samples reach its floor (metrics/tail-samples.ts), else null: p99 appears at 662. */
const pct = (xs: number[], p: number) => (supportsPercentile(xs.length, p) ? percentile(xs, p) : null);

export function figuresOf(l: LevelProgress): LevelFigures {
  const elapsedS = l.firstSentMs !== null && l.lastEndMs !== null ? (l.lastEndMs - l.firstSentMs) / 1000 : 0;
  return {
    levelIndex: l.levelIndex,
    done: l.done,
    errors: l.errors,
    errorsByCode: l.errorsByCode,
    outputTokensPerS: elapsedS > 0 ? l.outputTokens / elapsedS : null,
    ttftP50Ms: pct(l.ttftMs, 50),
    ttftP99Ms: pct(l.ttftMs, 99),
    itlP50Ms: pct(l.tokenItlMs, 50),
    itlP99Ms: pct(l.tokenItlMs, 99),
    ttftSamples: l.ttftMs.length,
    itlSamples: l.tokenItlMs.length,
    elapsedS,
  };
}

/** Tails one run directory's requests.jsonl; `poll()` reads what was appended since the last call. */
export class RequestsTail {
  private offset = 0;
  private partial = '';
  readonly levels = new Map<number, LevelProgress>();
  /** The newest measured record's level, and a bounded history of (end time, level, cumulative tokens). */
  latestLevel: number | null = null;
  readonly timeline: { tMs: number; levelIndex: number; outputTokens: number }[] = [];

  constructor(private readonly dir: string) {}

  poll(): number {
    const path = join(this.dir, 'requests.jsonl');
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      return 0;
    }
    if (size < this.offset) this.reset();
    if (size === this.offset) return 0;
    const length = Math.min(size - this.offset, MAX_READ_BYTES);
    const buf = Buffer.alloc(length);
    const fd = openSync(path, 'r');
    try {
      readSync(fd, buf, 0, length, this.offset);
    } finally {
      closeSync(fd);
    }
    this.offset += length;
    const lines = (this.partial + buf.toString('utf8')).split('\n');
    this.partial = lines.pop() ?? '';
    let n = 0;
    for (const line of lines) if (this.take(line)) n++;
    return n;
  }

  private reset(): void {
    this.offset = 0;
    this.partial = '';
    this.levels.clear();
    this.timeline.length = 0;
    this.latestLevel = null;
  }

  private take(line: string): boolean {
    if (!line.trim()) return false;
    let r: RequestRecord;
    try {
      r = JSON.parse(line) as RequestRecord;
    } catch {
      return false; // a line the reader cannot parse is skipped, as compare's reader would refuse it
    }
    if (r.warmup || typeof r.levelIndex !== 'number') return false;
    const l = this.levels.get(r.levelIndex) ?? newLevel(r.levelIndex);
    this.levels.set(r.levelIndex, l);
    add(l, r);
    this.latestLevel = r.levelIndex;
    this.timeline.push({ tMs: r.endMs, levelIndex: r.levelIndex, outputTokens: l.outputTokens });
    if (this.timeline.length > 4000) this.timeline.splice(0, this.timeline.length - 4000);
    return true;
  }
}
