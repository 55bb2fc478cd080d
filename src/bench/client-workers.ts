// `npm run bench:client` part 3: the client over worker threads (--workers). Client capacity (tokens/s and
// token-carrying SSE events/s the client takes in) with 1, 2 and more workers side by side in one run,
// against the pre-rendered stream server in another process, which writes many SSE events per write so
// it stays cheap per event and the client, not the server, is the bottleneck. Then TTFT over-statement
// with 1 and 2 workers against the simulator's `fixed` profile (server truth from GET /_sim/requests).
// Both go through session/level-send.ts, the path `bench` takes. Prints figures, asserts nothing.

import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { destroyAgents, type StreamTimeouts } from '../client/stream-request.js';
import { takeAnchor } from '../core/clock.js';
import type { BuiltRequest } from '../engines/types.js';
import { resolveWorkerCount } from '../load/worker-pool.js';
import type { RequestRecord } from '../records/request-record.js';
import { sendLevel } from '../session/level-send.js';
import { closedLoopShape } from './bench-shape.js';
import { processCpuS } from './child.js';

interface WorkersRun {
  records: RequestRecord[];
  /** Measured window: the common start → the last worker's end, ms. */
  windowMs: number;
  /** This process's CPU (every thread) over the whole call, as % of one core. */
  cpuPercent: number;
  /** That CPU in ms, and the tokens the call took in (warmup included) it was spent on. */
  cpuMs: number;
  allTokens: number;
  /** Origin of the records' times, epoch ms. */
  anchorEpochMs: number;
}

/** One closed-loop level through sendLevel with `workers` threads; measured records kept. */
export async function levelWithWorkers(
  url: string,
  built: BuiltRequest,
  o: { workers: number; concurrency: number; requests: number; warmup: number; timeouts: StreamTimeouts },
): Promise<WorkersRun> {
  const anchor = takeAnchor();
  const records: RequestRecord[] = [];
  let id = 0;
  let allTokens = 0;
  const maxTokens = Number(built.body.max_tokens);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const { result } = await sendLevel({
    shape: closedLoopShape(o.concurrency, o.requests, o.warmup),
    workers: o.workers,
    url,
    headers: {},
    timeouts: o.timeouts,
    anchor,
    built: [built],
    prompts: [{ prompt: '', inputTokens: 1, outputTokens: maxTokens }],
    inFlight: o.concurrency,
    nextId: () => id++,
    onRecord: (r) => {
      for (const n of r.chunkTokens) allTokens += n;
      if (!r.warmup) records.push(r);
    },
  });
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - t0;
  destroyAgents();
  return {
    records,
    windowMs: result.measuredEndMs - result.measuredStartMs,
    cpuPercent: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
    cpuMs: (cpu.user + cpu.system) / 1000,
    allTokens,
    anchorEpochMs: performance.timeOrigin + anchor.monoMs,
  };
}

/** Worker counts to compare: 1, 2, auto (cores − 1) and 4 (BENCH_WORKERS overrides), each once, in order. */
export function workerCounts(): number[] {
  const env = process.env.BENCH_WORKERS;
  if (env) return env.split(',').map(Number);
  return [...new Set([1, 2, resolveWorkerCount('auto', availableParallelism()), 4])].sort((a, b) => a - b);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Client capacity per worker count against a server that is cheap per event (its CPU is shown). */
export async function capacityByWorkers(
  url: string,
  built: BuiltRequest,
  o: { concurrency: number; requests: number; timeouts: StreamTimeouts; serverPid?: number },
): Promise<void> {
  console.log(
    'workers  requests  tokens    tokens/s   SSE events/s   vs 1 worker   client CPU % of one core   client µs CPU/token   server CPU %   errors',
  );
  // interleaved rounds (BENCH_ROUNDS, default 3): on a shared machine one run moves by ±30 %
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const byWorkers = new Map<number, { tokensPerS: number[]; cpu: number[]; usPerToken: number[] }>();
  let base: number | null = null;
  for (let round = 0; round < rounds; round++)
    for (const workers of workerCounts()) {
      const server0 = processCpuS(o.serverPid);
      const t0 = performance.now();
      const run = await levelWithWorkers(url, built, { ...o, workers, warmup: o.concurrency });
      const server1 = processCpuS(o.serverPid);
      const serverPct =
        server0 === null || server1 === null
          ? 'n/a'
          : (((server1 - server0) * 1000) / (performance.now() - t0)) * 100;
      let tokens = 0;
      let events = 0;
      for (const r of run.records) {
        events += r.chunkMs.length;
        for (const n of r.chunkTokens) tokens += n;
      }
      const perS = (x: number) => x / (run.windowMs / 1000);
      base ??= perS(tokens);
      const seen = byWorkers.get(workers) ?? { tokensPerS: [], cpu: [], usPerToken: [] };
      seen.tokensPerS.push(perS(tokens));
      seen.cpu.push(run.cpuPercent);
      seen.usPerToken.push((run.cpuMs * 1000) / run.allTokens);
      byWorkers.set(workers, seen);
      const errors = run.records.filter((r) => r.error !== null).length;
      console.log(
        `${`${workers}`.padStart(7)}  ${String(run.records.length).padStart(8)}  ${String(tokens).padStart(7)}  ${perS(tokens).toFixed(0).padStart(10)}  ${perS(events).toFixed(0).padStart(13)}  ${`${(perS(tokens) / base).toFixed(2)}×`.padStart(12)}  ${run.cpuPercent.toFixed(0).padStart(25)}  ${((run.cpuMs * 1000) / run.allTokens).toFixed(2).padStart(19)}  ${(typeof serverPct === 'number' ? serverPct.toFixed(0) : serverPct).padStart(12)}  ${String(errors).padStart(7)}`,
      );
    }
  const one = byWorkers.get(1);
  for (const [workers, v] of byWorkers) {
    const ratio = one ? `${(median(v.tokensPerS) / median(one.tokensPerS)).toFixed(2)}×` : 'n/a';
    console.log(
      `median of ${rounds}: ${workers} worker(s) ${median(v.tokensPerS).toFixed(0)} tokens/s (${ratio} of 1 worker), client CPU ${median(v.cpu).toFixed(0)} % of one core, ${median(v.usPerToken).toFixed(2)} µs CPU per token`,
    );
  }
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const p99 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!;
};

interface TruthDoc {
  timeOriginEpochMs: number;
  requests: { arrivalMs: number; chunkWriteMs: number[] }[];
}

/**
 * TTFT over-statement (client TTFT − the simulator's arrival → first write) with 1 and 2 workers.
 * Requests are paired in send order with the server's arrivals (closed loop on warm sockets).
 */
export async function ttftByWorkers(
  url: string,
  built: BuiltRequest,
  truthNow: () => Promise<TruthDoc>,
  timeouts: StreamTimeouts,
): Promise<void> {
  console.log(
    'concurrency  workers  requests  TTFT over-statement mean ms  p99 ms   request path mean ms  read path mean ms',
  );
  for (const c of [64, 256]) {
    for (const workers of [1, 2]) {
      const requests = 2 * c;
      const run = await levelWithWorkers(url, built, {
        workers,
        concurrency: c,
        requests,
        warmup: c,
        timeouts,
      });
      const t = await truthNow();
      // warmup is drained before the measured phase: its requests are the server's newest `requests`
      const truth = t.requests.slice(-requests).sort((a, b) => a.arrivalMs - b.arrivalMs);
      const ok = run.records.filter((r) => r.error === null).sort((a, b) => a.sentMs - b.sentMs);
      const head = `${String(c).padStart(11)}  ${String(workers).padStart(7)}  ${String(requests).padStart(8)}`;
      if (ok.length !== truth.length) {
        console.log(`${head}  ${ok.length} client records but ${truth.length} server truths`);
        continue;
      }
      const over = ok.map(
        (r, i) => r.chunkMs[0]! - r.sentMs - (truth[i]!.chunkWriteMs[0]! - truth[i]!.arrivalMs),
      );
      const cEpoch = (ms: number) => run.anchorEpochMs + ms;
      const sEpoch = (ms: number) => t.timeOriginEpochMs + ms;
      const request = ok.map((r, i) => sEpoch(truth[i]!.arrivalMs) - cEpoch(r.sentMs));
      const read = ok.map((r, i) => cEpoch(r.chunkMs[0]!) - sEpoch(truth[i]!.chunkWriteMs[0]!));
      console.log(
        `${head}  ${mean(over).toFixed(2).padStart(27)}  ${p99(over).toFixed(2).padStart(6)}  ${mean(request).toFixed(2).padStart(20)}  ${mean(read).toFixed(2).padStart(17)}`,
      );
    }
  }
}
