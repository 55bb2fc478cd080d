// The sampling query GPU telemetry runs during every level: one long-running nvidia-smi printing a CSV
// line per GPU every interval, read line by line as it arrives.

import { type ReadResult, readUnreadable, readValue } from '../../core/read-result.js';
import { ANSI, isInt, MAX_LINE_CHARS, quantity } from './text.js';

/** The fields sampled during every level, in this order (nounits: W, MiB, %, MHz). */
export const GPU_SAMPLE_FIELDS = 'index,utilization.gpu,memory.used,power.draw,clocks.sm,clocks.gr';

/** One long-running nvidia-smi printing a line per GPU every `intervalMs`. */
export function gpuSampleQuery(intervalMs: number): string[] {
  return [
    'nvidia-smi',
    `--query-gpu=${GPU_SAMPLE_FIELDS}`,
    '--format=csv,noheader,nounits',
    '-lms',
    String(Math.max(1, Math.round(intervalMs))),
  ];
}

/** One GPU at one instant; a figure the GPU does not report (`[N/A]`, `[Not Supported]`) is null. */
export interface GpuSample {
  gpu: number;
  utilizationPct: number | null;
  memoryUsedMiB: number | null;
  powerW: number | null;
  smClockMHz: number | null;
  graphicsClockMHz: number | null;
}

/** One line of the sampling query's output; anything else (a header, a driver message) is unreadable. */
export function readGpuSampleLine(line: string): ReadResult<GpuSample> {
  if (line.length > MAX_LINE_CHARS) return readUnreadable('a line too long for nvidia-smi CSV', line);
  const clean = line.replace(ANSI, '').trim();
  const cells = clean.split(',').map((c) => c.trim());
  if (cells.length !== 6 || !isInt(cells[0]))
    return readUnreadable(`not a line of the query ${GPU_SAMPLE_FIELDS}`, line);
  const [util, mem, power, sm, gr] = cells.slice(1).map(quantity);
  if ([util, mem, power, sm, gr].some((v) => v === undefined))
    return readUnreadable('a cell is neither a number nor an nvidia-smi placeholder', line);
  return readValue({
    gpu: Number(cells[0]),
    utilizationPct: util ?? null,
    memoryUsedMiB: mem ?? null,
    powerW: power ?? null,
    smClockMHz: sm ?? null,
    graphicsClockMHz: gr ?? null,
  });
}
