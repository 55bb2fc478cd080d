// What one benchgate process can hold, so a plan asking for more fails at validation with the limit
// named, instead of crashing the client out of memory minutes later. Read once: the open-file limit
// (`ulimit -n`, from /proc/self/limits; unknown elsewhere) and memory (the smaller of V8's heap limit and RAM).

import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { parseDurationS } from '../core/clock.js';
import { MAX_RATE, MAX_REQUESTS_PER_LEVEL, MAX_TOKENS } from './bounds.js';
import type { PlanPath, PlanProblem } from './problem.js';

/** More load levels than anyone sweeps; a list this long is a generated mistake. */
export const MAX_LEVELS = 10_000;
/** A plan is a page of YAML; datasets live in their own files. */
export const MAX_PLAN_BYTES = 1024 * 1024;
/** Descriptors kept for stdio, logs, the run store and the host's own commands. */
export const FD_RESERVE = 64;
/** Estimated client memory per request in flight (socket, buffers, parser, its record). */
export const BYTES_PER_IN_FLIGHT = 64 * 1024;
/** Memory of one worker thread (a V8 isolate with the client loaded). */
export const BYTES_PER_WORKER = 64 * 1024 * 1024;
/** Worker threads per CPU core beyond which they only take turns on the same cores. */
export const WORKERS_PER_CORE = 4;
/** Prompt text kept per token (about four characters, UTF-16 in memory, plus the token count). */
export const BYTES_PER_PROMPT_TOKEN = 12;
/** Distinct prompts a level builds at most (session.ts MAX_PROMPT_POOL); longer levels reuse them. */
export const PROMPT_POOL = 2048;

export interface ProcessLimits {
  /** Soft open-file limit (ulimit -n); null when it cannot be read. */
  openFiles: number | null;
  /** Memory benchgate allows itself for requests in flight: half of min(heap limit, RAM). */
  memoryBytes: number;
  /** CPU cores this process may use. */
  cores: number;
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
  cached = { openFiles, memoryBytes, cores: availableParallelism() };
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

const asMap = (v: unknown): Raw | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : null;

/** The largest token count a length spec can draw (fixed, uniform's b, normal's mean + 4 std); 0 when unreadable. */
function maxTokens(spec: unknown): number {
  const s = asMap(spec);
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  if (!s) return 0;
  if ('fixed' in s) return n(s.fixed);
  if (Array.isArray(s.uniform)) return n(s.uniform[1]);
  const normal = asMap(s.normal);
  return normal ? n(normal.mean) + 4 * n(normal.std) : 0;
}

/** Concurrency levels and caps beyond this process's descriptors and memory. */
function inFlightProblems(load: Raw, limits: ProcessLimits): PlanProblem[] {
  const out: PlanProblem[] = [];
  const check = (v: unknown, path: PlanPath) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) return;
    const why = inFlightProblem(v, limits);
    if (why) out.push({ path, message: why, anchor: 'value' });
  };
  const levels = Array.isArray(load.levels) ? load.levels : [];
  if ((load.kind ?? 'concurrency') === 'concurrency')
    for (const [i, v] of levels.entries()) check(v, ['load', 'levels', i]);
  check(load.max_concurrency, ['load', 'max_concurrency']);
  return out;
}

/** Worker threads beyond this machine's cores or this process's memory. */
function workerProblems(load: Raw, limits: ProcessLimits): PlanProblem[] {
  const w = load.workers;
  if (typeof w !== 'number' || !Number.isInteger(w) || w <= 1) return [];
  const byCores = limits.cores * WORKERS_PER_CORE;
  const byMemory = Math.floor(limits.memoryBytes / BYTES_PER_WORKER);
  if (w <= byCores && w <= byMemory) return [];
  const why =
    w > byCores
      ? `this machine has ${limits.cores} CPU cores: more than ${byCores} threads only take turns on them`
      : `each needs about ${BYTES_PER_WORKER / 1024 ** 2} MiB, more than the ${mib(limits.memoryBytes)} this process can use`;
  return [
    {
      path: ['load', 'workers'],
      message: `${w} worker threads: ${why}; at most ${Math.min(byCores, byMemory)} (or auto)`,
      anchor: 'value',
    },
  ];
}

/** Prompts (and shared prefixes) a level builds in memory, beyond what this process can hold. */
function promptMemoryProblems(raw: Raw, load: Raw, limits: ProcessLimits): PlanProblem[] {
  const workload = asMap(raw.workload) ?? {};
  const out: PlanProblem[] = [];
  const requests =
    (typeof load.requests === 'number' ? load.requests : 100) +
    (typeof load.warmup === 'number' ? load.warmup : 0);
  const prompts = Math.min(requests, PROMPT_POOL);
  const inputBytes = prompts * maxTokens(workload.input_tokens) * BYTES_PER_PROMPT_TOKEN;
  if (inputBytes > limits.memoryBytes)
    out.push({
      path: ['workload', 'input_tokens'],
      message: `${prompts} prompts of up to ${maxTokens(workload.input_tokens)} tokens need about ${mib(inputBytes)} of memory, more than the ${mib(limits.memoryBytes)} this process can use; lower the length`,
      anchor: 'value',
    });
  const shared = asMap(workload.shared_prefix);
  const groups = typeof shared?.groups === 'number' ? shared.groups : 0;
  const prefix = typeof shared?.prefix_tokens === 'number' ? shared.prefix_tokens : 0;
  if (groups * prefix * BYTES_PER_PROMPT_TOKEN > limits.memoryBytes)
    out.push({
      path: ['workload', 'shared_prefix', 'groups'],
      message: `${groups} prefixes of ${prefix} tokens need about ${mib(groups * prefix * BYTES_PER_PROMPT_TOKEN)} of memory, more than the ${mib(limits.memoryBytes)} this process can use`,
      anchor: 'value',
    });
  const multi = asMap(workload.multi_turn);
  const turns = typeof multi?.turns === 'number' ? multi.turns : 0;
  const perTurn = maxTokens(workload.input_tokens) + maxTokens(workload.output_tokens);
  if (turns * perTurn > MAX_TOKENS)
    out.push({
      path: ['workload', 'multi_turn', 'turns'],
      message: `${turns} turns of up to ${perTurn} tokens each grow a history of ${turns * perTurn} tokens, more than the ${MAX_TOKENS} one request may hold`,
      anchor: 'value',
    });
  return out;
}

/** An open-loop rate above MAX_RATE, or whose rate × duration schedules more requests than one level may hold. */
function scheduleProblems(load: Raw): PlanProblem[] {
  if (load.kind !== 'rate') return [];
  const levels = Array.isArray(load.levels) ? load.levels : [];
  const tooFast = levels.flatMap((r, i): PlanProblem[] =>
    typeof r === 'number' && r > MAX_RATE
      ? [{ path: ['load', 'levels', i], message: `${r} req/s; at most ${MAX_RATE} req/s`, anchor: 'value' }]
      : [],
  );
  if (tooFast.length > 0 || load.requests !== undefined || load.duration === undefined) return tooFast;
  const s =
    typeof load.duration === 'string' || typeof load.duration === 'number'
      ? parseDurationS(load.duration)
      : null;
  const out: PlanProblem[] = [];
  levels.forEach((r, i) => {
    if (typeof r === 'number' && s !== null && r * s > MAX_REQUESTS_PER_LEVEL)
      out.push({
        path: ['load', 'levels', i],
        message: `${r} req/s for ${s} s schedules ${Math.round(r * s)} requests in one level; at most ${MAX_REQUESTS_PER_LEVEL} (set load.requests, or shorten load.duration)`,
        anchor: 'value',
      });
  });
  return out;
}

/** Problems of a raw plan that asks for more than one process can hold. */
export function limitProblems(raw: unknown, limits: ProcessLimits = processLimits()): PlanProblem[] {
  const plan = asMap(raw);
  if (!plan) return [];
  const load = asMap(plan.load) ?? {};
  const levels = Array.isArray(load.levels) ? load.levels : [];
  if (levels.length > MAX_LEVELS)
    return [
      {
        path: ['load', 'levels'],
        message: `${levels.length} levels listed; at most ${MAX_LEVELS} are allowed`,
        anchor: 'key',
      },
    ];
  return [
    ...inFlightProblems(load, limits),
    ...workerProblems(load, limits),
    ...promptMemoryProblems(plan, load, limits),
    ...scheduleProblems(load),
  ];
}
