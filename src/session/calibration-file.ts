// The saved client calibration (`benchgate calibrate`): its shape, where it lives and how it is read
// back. `bench` reads it before any load to flag levels the client cannot drive; a file that cannot be
// read is reported as such, never taken as "no limit".

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const CALIBRATION_SCHEMA = 'benchgate.calibration/1';

/** One closed-loop concurrency of the sweep; per-core figures divide by the client's own CPU seconds. */
export interface CalibrationLevel {
  concurrency: number;
  requests: number;
  errors: number;
  wallS: number;
  clientCpuS: number;
  requestsPerS: number;
  tokensPerS: number;
  requestsPerCoreS: number;
  tokensPerCoreS: number;
  sseEventsPerCoreS: number;
  /** Mean client TTFT minus the server's own arrival → first-write time, per request. */
  clientAddedTtftMeanMs: number | null;
  clientAddedTtftP99Ms: number | null;
  /** Share of the level's wall time the event loop ran late (timer lateness summed over wall time). */
  eventLoopStallPercent: number;
  eventLoopDelayP99Ms: number | null;
  cpuPercentOfOneCore: number | null;
}

export interface Calibration {
  schema: typeof CALIBRATION_SCHEMA;
  createdAt: string;
  machine: {
    cores: number;
    cpuModel: string;
    node: string;
    os: string;
    benchgate: string;
    /** Other work on the machine when the sweep ended (os.loadavg()[0]); a busy machine lowers every figure. */
    loadAverage1m: number;
  };
  server: string;
  outputTokensPerRequest: number;
  levels: CalibrationLevel[];
  /** The capacity a user can quote: the best per-core figures of the sweep. */
  capacity: { requestsPerS: number; tokensPerS: number; sseEventsPerS: number };
  /** Smallest concurrency whose event loop stalled beyond STALL_LIMIT_PERCENT, or null. */
  firstStalledConcurrency: number | null;
}

/** Above this share of wall time spent late, the client was the bottleneck at that concurrency. */
export const STALL_LIMIT_PERCENT = 5;

/** BENCHGATE_CALIBRATION, or ~/.cache/benchgate/calibration.json. */
export function defaultCalibrationPath(): string {
  return process.env.BENCHGATE_CALIBRATION ?? join(homedir(), '.cache', 'benchgate', 'calibration.json');
}

export function saveCalibration(path: string, c: Calibration): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(c, null, 2)}\n`);
}

export type CalibrationRead =
  | { kind: 'absent' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'ok'; calibration: Calibration };

export function readCalibration(path: string = defaultCalibrationPath()): CalibrationRead {
  if (!existsSync(path)) return { kind: 'absent' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    return { kind: 'unreadable', reason: `${path}: ${(e as Error).message.slice(0, 200)}` };
  }
  const c = parsed as Partial<Calibration> | null;
  const cap = c?.capacity;
  if (
    c?.schema !== CALIBRATION_SCHEMA ||
    !Array.isArray(c.levels) ||
    c.levels.length === 0 ||
    typeof cap?.tokensPerS !== 'number' ||
    typeof cap.requestsPerS !== 'number'
  )
    return { kind: 'unreadable', reason: `${path} is not a ${CALIBRATION_SCHEMA} file` };
  return { kind: 'ok', calibration: c as Calibration };
}

const num = (n: number | null, digits = 0): string => (n === null ? 'n/a' : n.toFixed(digits));

/** The capacity table `benchgate calibrate` prints (plain text, one row per concurrency). */
export function renderCalibrationTable(c: Calibration): string {
  const m = c.machine;
  const head = [
    `benchgate client calibration — ${m.cores} cores, ${m.cpuModel}, node ${m.node}, benchgate ${m.benchgate}, load average ${m.loadAverage1m.toFixed(1)}, ${c.createdAt}`,
    `server: ${c.server}; ${c.outputTokensPerRequest} output tokens per request`,
    '',
    'concurrency  requests  errors   req/s  tokens/s  req/s/core  tokens/s/core  SSE events/s/core  client TTFT mean / p99 ms  stall %  loop p99 ms  CPU %',
  ];
  const rows = c.levels.map((l) =>
    [
      String(l.concurrency).padStart(11),
      String(l.requests).padStart(8),
      String(l.errors).padStart(6),
      num(l.requestsPerS).padStart(7),
      num(l.tokensPerS).padStart(8),
      num(l.requestsPerCoreS).padStart(10),
      num(l.tokensPerCoreS).padStart(13),
      num(l.sseEventsPerCoreS).padStart(17),
      `${num(l.clientAddedTtftMeanMs, 2)} / ${num(l.clientAddedTtftP99Ms, 2)}`.padStart(25),
      num(l.eventLoopStallPercent, 1).padStart(7),
      num(l.eventLoopDelayP99Ms, 1).padStart(11),
      num(l.cpuPercentOfOneCore).padStart(5),
    ].join('  '),
  );
  const cap = c.capacity;
  const stalled =
    c.firstStalledConcurrency === null
      ? `no concurrency stalled the event loop beyond ${STALL_LIMIT_PERCENT}%`
      : `the event loop stalled beyond ${STALL_LIMIT_PERCENT}% from concurrency ${c.firstStalledConcurrency}`;
  return [
    ...head,
    ...rows,
    '',
    `capacity per core: ${num(cap.requestsPerS)} requests/s, ${num(cap.tokensPerS)} streamed tokens/s, ${num(cap.sseEventsPerS)} SSE events/s; ${stalled}.`,
  ].join('\n');
}
