// What one benchgate process can hold, so a plan asking for more fails at validation with the limit
// named, instead of crashing the client out of memory minutes later. Read once: the open-file limit
// (`ulimit -n`, from /proc/self/limits; unknown elsewhere) and memory (the smaller of V8's heap limit and RAM).

import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { PlanPath, PlanProblem } from './problem.js';

/** More load levels than anyone sweeps; a list this long is a generated mistake. */
export const MAX_LEVELS = 10_000;
/** A plan is a page of YAML; datasets live in their own files. */
export const MAX_PLAN_BYTES = 1024 * 1024;
/** Descriptors kept for stdio, logs, the run store and the host's own commands. */
export const FD_RESERVE = 64;
/** Estimated client memory per request in flight (socket, buffers, parser, its record). */
export const BYTES_PER_IN_FLIGHT = 64 * 1024;

export interface ProcessLimits {
  /** Soft open-file limit (ulimit -n); null when it cannot be read. */
  openFiles: number | null;
  /** Memory benchgate allows itself for requests in flight: half of min(heap limit, RAM). */
  memoryBytes: number;
}

/** Parses the "Max open files" soft limit from /proc/<pid>/limits text; null for "unlimited" or absent. */
export function parseOpenFilesLimit(text: string): number | null {
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
}

let cached: ProcessLimits | null = null;

export function processLimits(): ProcessLimits {
  if (cached) return cached;
  let openFiles: number | null = null;
  try {
    openFiles = parseOpenFilesLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    openFiles = null; // not Linux: the descriptor check is skipped, memory still applies
  }
  const memoryBytes = Math.floor(Math.min(getHeapStatistics().heap_size_limit, totalmem()) / 2);
  cached = { openFiles, memoryBytes };
  return cached;
}

function mib(bytes: number): string {
  return bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(1)} GiB`
    : `${Math.round(bytes / 1024 ** 2)} MiB`;
}

/** Why `inFlight` requests at once cannot run in this process, or null when they can. */
export function inFlightProblem(inFlight: number, limits: ProcessLimits): string | null {
  if (limits.openFiles !== null && inFlight > limits.openFiles - FD_RESERVE) {
    return (
      `${inFlight} requests in flight need ${inFlight} open connections, but this process may open ` +
      `${limits.openFiles} files (ulimit -n), ${FD_RESERVE} of them kept for logs and results: at most ` +
      `${Math.max(0, limits.openFiles - FD_RESERVE)}; raise ulimit -n or lower the value`
    );
  }
  const needBytes = inFlight * BYTES_PER_IN_FLIGHT;
  if (needBytes > limits.memoryBytes) {
    return (
      `${inFlight} requests in flight need about ${mib(needBytes)} of client memory ` +
      `(${BYTES_PER_IN_FLIGHT / 1024} KiB each), more than the ${mib(limits.memoryBytes)} this process can use: at most ` +
      `${Math.floor(limits.memoryBytes / BYTES_PER_IN_FLIGHT)}; lower the value`
    );
  }
  return null;
}

type Raw = Record<string, unknown>;

/** Problems of a raw plan that asks for more than one process can hold. */
export function limitProblems(raw: unknown, limits: ProcessLimits = processLimits()): PlanProblem[] {
  const load = raw && typeof raw === 'object' ? ((raw as Raw).load as Raw | undefined) : undefined;
  if (!load || typeof load !== 'object') return [];
  const out: PlanProblem[] = [];
  const levels = Array.isArray(load.levels) ? load.levels : [];
  if (levels.length > MAX_LEVELS) {
    out.push({
      path: ['load', 'levels'],
      message: `${levels.length} levels listed; at most ${MAX_LEVELS} are allowed`,
      anchor: 'key',
    });
    return out;
  }
  const check = (v: unknown, path: PlanPath) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) return;
    const why = inFlightProblem(v, limits);
    if (why) out.push({ path, message: why, anchor: 'value' });
  };
  if ((load.kind ?? 'concurrency') === 'concurrency')
    for (const [i, v] of levels.entries()) check(v, ['load', 'levels', i]);
  check(load.max_concurrency, ['load', 'max_concurrency']);
  return out;
}
