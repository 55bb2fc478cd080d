// `benchgate calibrate`: how much load benchgate's own client can drive on this machine. Sweeps a few
// closed-loop concurrencies against the embedded simulator's `fixed` profile with zero TTFT and zero
// inter-token time, in a separate process so its CPU is not the client's, and reads the simulator's own
// per-request write times so the TTFT the client adds can be separated from the server's.

import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { destroyAgents, streamRequest, timeoutsFromPlan } from '../client/stream-request.js';
import { createTargetHttp } from '../client/target-http.js';
import { BenchgateError } from '../core/errors.js';
import { benchgateVersion } from '../core/version.js';
import type { BuiltRequest } from '../engines/types.js';
import { runLevel } from '../load/level-runner.js';
import { startSelfCheck } from '../load/self-check.js';
import { targetSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import {
  CALIBRATION_SCHEMA,
  type Calibration,
  type CalibrationLevel,
  STALL_LIMIT_PERCENT,
} from './calibration-file.js';
import { startSimulatorProcess } from './simulator-process.js';

export interface CalibrateOptions {
  /** Two small levels of about a second each (tests, a first look). */
  quick?: boolean;
  /** Progress lines (stderr in the CLI). */
  note?: (line: string) => void;
}

const TIMEOUTS = timeoutsFromPlan(targetSchema.shape.timeouts.parse(undefined));
const SWEEP = { concurrencies: [1, 16, 64, 256], durationMs: 3000, outputTokens: 64 };
const QUICK = { concurrencies: [1, 8], durationMs: 800, outputTokens: 16 };
/**
 * A level ends after this many requests if its duration has not run out first: the simulator keeps
 * its last 2,048 requests' write times, and every measured request must be paired with its own.
 */
const MAX_LEVEL_REQUESTS = 2000;

interface Truth {
  arrivalMs: number;
  chunkWriteMs: number[];
}

/**
 * Timer lateness summed over the wall time: the share of time the event loop could not run on time.
 * A 10 ms timer fires up to about 1 ms late on an idle machine (timer granularity), so only lateness
 * beyond that grace counts.
 */
function startStallMeter(): () => number {
  const tickMs = 10;
  const graceMs = 1;
  let late = 0;
  let last = performance.now();
  const t0 = last;
  const timer = setInterval(() => {
    const now = performance.now();
    late += Math.max(0, now - last - tickMs - graceMs);
    last = now;
  }, tickMs);
  return () => {
    clearInterval(timer);
    const wall = performance.now() - t0;
    return wall > 0 ? (late / wall) * 100 : 0;
  };
}

const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
function p99(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)];
}

/** Client TTFT minus the server's arrival → first write, pairing records and truths in send order. */
function clientAddedTtfts(records: RequestRecord[], truths: Truth[]): number[] {
  const ok = records.filter((r) => !r.error && r.chunkMs.length > 0).sort((a, b) => a.sentMs - b.sentMs);
  const t = truths.filter((x) => x.chunkWriteMs.length > 0).sort((a, b) => a.arrivalMs - b.arrivalMs);
  if (ok.length !== t.length) return [];
  return ok.map((r, i) => r.chunkMs[0] - r.sentMs - (t[i].chunkWriteMs[0] - t[i].arrivalMs));
}

async function measureLevel(
  url: string,
  built: BuiltRequest,
  concurrency: number,
  durationMs: number,
  lastTruths: (n: number) => Promise<Truth[]>,
): Promise<CalibrationLevel> {
  const originMs = performance.now();
  let id = 0;
  const shape = (requests: number | null, ms: number | null) => ({
    levelIndex: 0,
    level: { kind: 'concurrency' as const, value: concurrency },
    requests,
    durationMs: ms,
    warmup: 0,
    arrival: 'constant' as const,
    burstiness: 1,
    seed: 1,
  });
  const send = (a: { scheduledAtMs: number; signal: AbortSignal }) =>
    streamRequest({
      baseUrl: url,
      request: built,
      originMs,
      id: id++,
      levelIndex: 0,
      warmup: false,
      scheduledAtMs: a.scheduledAtMs,
      requestedOutputTokens: Number(built.body.max_tokens),
      timeouts: TIMEOUTS,
      signal: a.signal,
    });
  // open the connections and warm the JIT before measuring
  await runLevel({ shape: shape(concurrency, null), send, onRecord: () => {} });
  const records: RequestRecord[] = [];
  const stall = startStallMeter();
  const self = startSelfCheck();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await runLevel({ shape: shape(MAX_LEVEL_REQUESTS, durationMs), send, onRecord: (r) => records.push(r) });
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const reading = self.stop();
  const stallPercent = stall();
  // the server's last records.length requests are this level's (the warm-up ones came before)
  const truths = await lastTruths(records.length);
  const clientCpuS = (cpu.user + cpu.system) / 1e6;
  const ok = records.filter((r) => !r.error);
  const tokens = ok.reduce((a, r) => a + r.chunkTokens.reduce((x, y) => x + y, 0), 0);
  const events = ok.reduce((a, r) => a + r.chunkMs.length, 0);
  const added = clientAddedTtfts(records, truths);
  const perCore = (n: number) => (clientCpuS > 0 ? n / clientCpuS : 0);
  return {
    concurrency,
    requests: records.length,
    errors: records.length - ok.length,
    wallS,
    clientCpuS,
    requestsPerS: ok.length / wallS,
    tokensPerS: tokens / wallS,
    requestsPerCoreS: perCore(ok.length),
    tokensPerCoreS: perCore(tokens),
    sseEventsPerCoreS: perCore(events),
    clientAddedTtftMeanMs: mean(added),
    clientAddedTtftP99Ms: p99(added),
    eventLoopStallPercent: stallPercent,
    eventLoopDelayP99Ms: reading.eventLoopDelayP99Ms,
    cpuPercentOfOneCore: reading.cpuPercentOfOneCore,
  };
}

/** Runs the bounded sweep and returns the calibration (the caller saves it). */
export async function runCalibration(opts: CalibrateOptions = {}): Promise<Calibration> {
  const sweep = opts.quick ? QUICK : SWEEP;
  const note = opts.note ?? (() => {});
  const sim = await startSimulatorProcess({
    flavor: 'vllm',
    profile: 'fixed',
    ttftMs: 0,
    itlMs: 0,
    tokensPerChunk: 1,
  });
  try {
    const http = createTargetHttp(sim.url, { timeoutMs: 10_000 });
    const models = (await http.request('/v1/models')).json as { data?: { id: string }[] } | undefined;
    const model = models?.data?.[0]?.id;
    if (!model) throw new BenchgateError('BG_E_SIM', `the calibration server at ${sim.url} listed no model.`);
    const built: BuiltRequest = {
      method: 'POST',
      path: '/v1/completions',
      body: {
        model,
        prompt: 'a b c d',
        max_tokens: sweep.outputTokens,
        stream: true,
        ignore_eos: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      },
      tokenAccounting: 'openai-continuous-usage',
    };
    // the simulator keeps its last 2,048 requests; fewer than a level sent leaves that level unpaired
    const lastTruths = async (n: number): Promise<Truth[]> => {
      const doc = (await http.request('/_sim/requests')).json as { requests?: Truth[] } | undefined;
      if (!Array.isArray(doc?.requests))
        throw new BenchgateError('BG_E_SIM', 'the calibration server did not report its write times.');
      return doc.requests.length >= n ? doc.requests.slice(doc.requests.length - n) : [];
    };
    const levels: CalibrationLevel[] = [];
    for (const c of sweep.concurrencies) {
      note(`benchgate: calibrating at concurrency ${c} for ${sweep.durationMs / 1000} s…`);
      levels.push(await measureLevel(sim.url, built, c, sweep.durationMs, lastTruths));
      destroyAgents();
    }
    return assemble(levels, sweep.outputTokens);
  } finally {
    destroyAgents();
    await sim.close();
  }
}

function assemble(levels: CalibrationLevel[], outputTokens: number): Calibration {
  const best = (f: (l: CalibrationLevel) => number) => Math.max(...levels.map(f));
  const stalled = levels.find((l) => l.eventLoopStallPercent > STALL_LIMIT_PERCENT);
  return {
    schema: CALIBRATION_SCHEMA,
    createdAt: new Date().toISOString(),
    machine: {
      cores: availableParallelism(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      os: `${process.platform} ${process.arch}`,
      benchgate: benchgateVersion(),
      loadAverage1m: loadavg()[0],
    },
    server:
      'embedded simulator, vllm flavour, fixed profile (TTFT 0 ms, ITL 0 ms, 1 token per chunk), own process',
    outputTokensPerRequest: outputTokens,
    levels,
    capacity: {
      requestsPerS: best((l) => l.requestsPerCoreS),
      tokensPerS: best((l) => l.tokensPerCoreS),
      sseEventsPerS: best((l) => l.sseEventsPerCoreS),
    },
    firstStalledConcurrency: stalled?.concurrency ?? null,
  };
}
