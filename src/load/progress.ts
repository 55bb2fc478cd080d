// Progress on stderr (per level: done / total, output tok/s, TTFT p50, errors, ETA): a live rewritten line
// when stderr is a TTY (and NO_COLOR is unset and --json off), plain lines at a low rate when it is piped
// (every 10 s and at level end, repeated wait lines at most every 10 s), nothing with --json.

import { performance } from 'node:perf_hooks';
import type { RequestRecord } from '../records/request-record.js';

export interface ProgressView {
  levelStarted(
    levelIndex: number,
    levelCount: number,
    label: string,
    total: number | null,
    durationMs: number | null,
    /** What is counted: a plan level, or an SLO-search probe out of max_probes. */
    unit?: 'level' | 'probe',
  ): void;
  record(r: RequestRecord): void;
  levelDone(): void;
  note(line: string): void;
}

export const silentProgress: ProgressView = {
  levelStarted() {},
  record() {},
  levelDone() {},
  note() {},
};

function median(xs: Float64Array): number | null {
  if (xs.length === 0) return null;
  const s = xs.slice().sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The live TTFT median is over the level's newest this many requests (a ring: memory does not grow with the level). */
const RECENT_TTFTS = 2000;

/** Running numbers of the current level and its one-line rendering. */
function levelStats() {
  let label = '';
  let total: number | null = null;
  let durationMs: number | null = null;
  let startMs = 0;
  let done = 0;
  let errors = 0;
  let outTokens = 0;
  const ttfts = new Float64Array(RECENT_TTFTS);
  let ttftCount = 0;
  return {
    start(
      levelIndex: number,
      levelCount: number,
      l: string,
      t: number | null,
      d: number | null,
      unit: 'level' | 'probe' = 'level',
    ): void {
      label = `${unit} ${levelIndex + 1}/${levelCount} ${l}`;
      total = t;
      durationMs = d;
      startMs = performance.now();
      done = 0;
      errors = 0;
      outTokens = 0;
      ttftCount = 0;
    },
    /** False for warmup records (not counted). */
    add(r: RequestRecord): boolean {
      if (r.warmup) return false;
      done++;
      if (r.error) errors++;
      else {
        for (const n of r.chunkTokens) outTokens += n;
        if (r.chunkMs.length > 0) ttfts[ttftCount++ % RECENT_TTFTS] = r.chunkMs[0] - r.sentMs;
      }
      return true;
    },
    line(): string {
      const elapsedS = (performance.now() - startMs) / 1000;
      const tokS = elapsedS > 0 ? outTokens / elapsedS : 0;
      const p50 = median(ttfts.subarray(0, Math.min(ttftCount, RECENT_TTFTS)));
      let eta = '';
      if (total !== null && done > 0)
        eta = `ETA ${Math.max(0, ((total - done) * elapsedS) / done).toFixed(0)}s`;
      else if (durationMs !== null) eta = `ETA ${Math.max(0, durationMs / 1000 - elapsedS).toFixed(0)}s`;
      return `${label}  ${done}${total !== null ? `/${total}` : ''} done  ${tokS.toFixed(0)} out tok/s  TTFT p50 ${p50 === null ? '-' : p50.toFixed(1)} ms  errors ${errors}  ${eta}`;
    },
  };
}

/** A single rewritten stderr line, refreshed at most every 250 ms. */
export function ttyProgress(stream: NodeJS.WriteStream = process.stderr): ProgressView {
  const stats = levelStats();
  let lastDraw = 0;
  let drawn = false;

  const draw = (force: boolean): void => {
    const now = performance.now();
    if (!force && now - lastDraw < 250) return;
    lastDraw = now;
    stream.write(`\r\x1b[2K${stats.line()}`);
    drawn = true;
  };

  return {
    levelStarted(levelIndex, levelCount, l, t, d, unit) {
      stats.start(levelIndex, levelCount, l, t, d, unit);
      draw(true);
    },
    record(r) {
      if (stats.add(r)) draw(false);
    },
    levelDone() {
      draw(true);
      stream.write('\n');
      drawn = false;
    },
    note(line) {
      if (drawn) stream.write('\r\x1b[2K');
      stream.write(`${line}\n`);
      if (drawn) draw(true);
    },
  };
}

/** How often a piped progress view writes a line during a level, and repeats a waiting line. */
export const PLAIN_PROGRESS_EVERY_MS = 10_000;

/** The elapsed / limit counter of a waiting line: "12s / 600s", "12 s / 900 s". */
const COUNTER = /\b\d+(?:\.\d+)? ?s \/ \d+(?:\.\d+)? ?s\b/;

/**
 * Passes lines to `write`, dropping only repeats within `everyMs` of the last line written: the same
 * line again, or a waiting line (one with an elapsed / limit counter, "waiting for …/health: 3s / 600s")
 * whose text before its counter is the same, so a wait prints once per `everyMs` in a log file. Different
 * lines always pass, whatever they begin with (every note starts "benchgate:").
 */
export function throttledLines(write: (line: string) => void, everyMs = PLAIN_PROGRESS_EVERY_MS) {
  let lastKey: string | null = null;
  let lastAt = 0;
  return (line: string): void => {
    const counter = COUNTER.exec(line);
    const key = counter ? `${line.slice(0, counter.index)}\u0000counter` : line;
    const now = performance.now();
    if (key === lastKey && now - lastAt < everyMs) return;
    lastKey = key;
    lastAt = now;
    write(line);
  };
}

/** For a piped stderr: one plain line per level at its start, every `everyMs` while it runs, and at its end. */
export function plainProgress(
  stream: { write(s: string): unknown } = process.stderr,
  everyMs = PLAIN_PROGRESS_EVERY_MS,
): ProgressView {
  const stats = levelStats();
  let lastLine = 0;
  const print = (): void => {
    lastLine = performance.now();
    stream.write(`${stats.line()}\n`);
  };
  const note = throttledLines((l) => stream.write(`${l}\n`), everyMs);
  return {
    levelStarted(levelIndex, levelCount, l, t, d, unit) {
      stats.start(levelIndex, levelCount, l, t, d, unit);
      print();
    },
    record(r) {
      if (stats.add(r) && performance.now() - lastLine >= everyMs) print();
    },
    levelDone() {
      print();
    },
    note,
  };
}

/**
 * The progress view for stderr: live on a TTY without NO_COLOR, plain lines when piped; with --json only
 * notes (messages such as "benchgate started the embedded simulator"), throttled like piped ones.
 */
export function stderrProgress(opts: { json: boolean }): ProgressView {
  if (opts.json) return { ...silentProgress, note: throttledLines((l) => process.stderr.write(`${l}\n`)) };
  return liveStderr() ? ttyProgress() : plainProgress();
}

/** A rewritten live line is drawn only on a TTY stderr and without NO_COLOR (README). */
export function liveStderr(): boolean {
  return process.stderr.isTTY === true && !process.env.NO_COLOR;
}
