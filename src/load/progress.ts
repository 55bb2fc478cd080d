// The live progress line on stderr (per level: done / total, output tok/s, TTFT p50, errors, ETA).
// Only drawn when stderr is a TTY and --json is off; otherwise the view is silent.

import { performance } from 'node:perf_hooks';
import type { RequestRecord } from '../records/request-record.js';

export interface ProgressView {
  levelStarted(
    levelIndex: number,
    levelCount: number,
    label: string,
    total: number | null,
    durationMs: number | null,
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

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A single rewritten stderr line, refreshed at most every 250 ms. */
export function ttyProgress(stream: NodeJS.WriteStream = process.stderr): ProgressView {
  let label = '';
  let total: number | null = null;
  let durationMs: number | null = null;
  let startMs = 0;
  let done = 0;
  let errors = 0;
  let outTokens = 0;
  let ttfts: number[] = [];
  let lastDraw = 0;
  let drawn = false;

  const draw = (force: boolean): void => {
    const now = performance.now();
    if (!force && now - lastDraw < 250) return;
    lastDraw = now;
    const elapsedS = (now - startMs) / 1000;
    const tokS = elapsedS > 0 ? outTokens / elapsedS : 0;
    const p50 = median(ttfts.length > 2000 ? ttfts.slice(-2000) : ttfts);
    let eta = '';
    if (total !== null && done > 0)
      eta = `ETA ${Math.max(0, ((total - done) * elapsedS) / done).toFixed(0)}s`;
    else if (durationMs !== null) eta = `ETA ${Math.max(0, durationMs / 1000 - elapsedS).toFixed(0)}s`;
    const line = `${label}  ${done}${total !== null ? `/${total}` : ''} done  ${tokS.toFixed(0)} out tok/s  TTFT p50 ${p50 === null ? '-' : p50.toFixed(1)} ms  errors ${errors}  ${eta}`;
    stream.write(`\r\x1b[2K${line}`);
    drawn = true;
  };

  return {
    levelStarted(levelIndex, levelCount, l, t, d) {
      label = `level ${levelIndex + 1}/${levelCount} ${l}`;
      total = t;
      durationMs = d;
      startMs = performance.now();
      done = 0;
      errors = 0;
      outTokens = 0;
      ttfts = [];
      draw(true);
    },
    record(r) {
      if (r.warmup) return;
      done++;
      if (r.error) errors++;
      else {
        for (const n of r.chunkTokens) outTokens += n;
        if (r.chunkMs.length > 0) ttfts.push(r.chunkMs[0] - r.sentMs);
      }
      draw(false);
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
