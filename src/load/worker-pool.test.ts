import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  completionChunk,
  type ScriptedServer,
  sleep,
  startScriptedServer,
} from '../client/test-support/scripted-server.js';
import { planDefaultTimeouts } from '../client/test-support/timeouts.js';
import { BenchgateError } from '../core/errors.js';
import { threadClock } from '../core/shared-clock.js';
import type { RequestRecord } from '../records/request-record.js';
import type { LevelShape } from './level-runner.js';
import { WORKER_FAULT_ENV } from './worker-faults.js';
import { type PoolLevelOptions, resolveWorkerCount, runLevelInWorkers } from './worker-pool.js';
import type { FromWorker } from './worker-protocol.js';

let srv: ScriptedServer;
let active = 0;
let maxActive = 0;
const prompts: string[] = [];

beforeAll(async () => {
  srv = await startScriptedServer({
    '/v1/completions': async (_q, res, body) => {
      active++;
      maxActive = Math.max(maxActive, active);
      prompts.push(String((JSON.parse(body) as { prompt?: unknown }).prompt));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await sleep(20);
      res.write(`data: ${completionChunk('a', {}, 'length')}\n\ndata: [DONE]\n\n`);
      active--;
      res.end();
    },
    '/v1/fail': (_q, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('down');
    },
  });
});
afterAll(() => srv.close());

const shape = (over: Partial<LevelShape> = {}): LevelShape => ({
  levelIndex: 0,
  level: { kind: 'concurrency', value: 4 },
  requests: 24,
  durationMs: null,
  warmup: 4,
  arrival: 'poisson',
  burstiness: 1,
  seed: 1,
  ...over,
});

function pool(anchorMonoMs: number, over: Partial<PoolLevelOptions> = {}) {
  const records: RequestRecord[] = [];
  let id = 0;
  const opts: PoolLevelOptions = {
    workers: 2,
    shape: shape(),
    job: {
      baseUrl: srv.url,
      headers: {},
      timeouts: planDefaultTimeouts(),
      anchorSharedMs: threadClock().toShared(anchorMonoMs),
      requests: Array.from({ length: 8 }, (_, i) => ({
        method: 'POST' as const,
        path: '/v1/completions',
        body: { model: 'm', prompt: `p${i}`, max_tokens: 1, stream: true },
        tokenAccounting: 'openai-final-usage' as const,
      })),
      outputTokens: Array(8).fill(1),
      inputTokens: Array(8).fill(null),
    },
    preconnect: 4,
    nextId: () => id++,
    onRecord: (r) => records.push(r),
    ...over,
  };
  return { opts, records };
}

describe('a level over worker threads', () => {
  it("stamps times on the parent's anchor: a worker's reading falls between two of the parent's", async () => {
    const anchor = performance.now();
    const stamps: { before: number; worker: number; after: number }[] = [];
    const { opts } = pool(anchor, {
      onWorker: (w) => {
        w.on('message', (m: FromWorker) => {
          if (m.t !== 'warmed') return;
          const before = performance.now() - anchor;
          w.once('message', (reply: FromWorker) => {
            if (reply.t === 'stamp')
              stamps.push({ before, worker: reply.sinceAnchorMs, after: performance.now() - anchor });
          });
          w.postMessage({ t: 'stamp' });
        });
      },
    });
    await runLevelInWorkers(opts);
    expect(stamps).toHaveLength(2);
    for (const s of stamps) {
      expect(s.worker).toBeGreaterThanOrEqual(s.before);
      expect(s.worker).toBeLessThanOrEqual(s.after);
    }
  });

  it('sends the exact request count at the exact total concurrency, records inside the call on the anchor', async () => {
    const anchor = performance.now();
    const { opts, records } = pool(anchor);
    maxActive = 0;
    prompts.length = 0;
    const before = performance.now() - anchor;
    const result = await runLevelInWorkers(opts);
    const after = performance.now() - anchor;
    expect(records.filter((r) => !r.warmup)).toHaveLength(24);
    expect(records.filter((r) => r.warmup)).toHaveLength(4);
    expect(records.every((r) => r.error === null)).toBe(true);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expect(maxActive).toBe(4);
    // both workers' prompts: the pool is spread over them, not sent twice
    expect(new Set(prompts).size).toBe(8);
    for (const r of records) {
      expect(r.sentMs).toBeGreaterThanOrEqual(before);
      expect(r.endMs).toBeLessThanOrEqual(after);
    }
    // warmup is drained in every worker before any measured send
    const lastWarmupEnd = Math.max(...records.filter((r) => r.warmup).map((r) => r.endMs));
    const firstMeasured = Math.min(...records.filter((r) => !r.warmup).map((r) => r.sentMs));
    expect(firstMeasured).toBeGreaterThanOrEqual(lastWarmupEnd);
    // the common start (sleepUntil never sends early; 1 ms covers converting it between the threads' clocks)
    expect(result.measuredStartMs - anchor).toBeLessThanOrEqual(firstMeasured + 1);
    expect(result.self.workers).toHaveLength(2);
    expect(result.interrupted).toBe(false);
  });

  it('sends every arrival of one open-loop schedule once, from one common start', async () => {
    const anchor = performance.now();
    const { opts, records } = pool(anchor, {
      shape: shape({ level: { kind: 'rate', value: 200, maxConcurrency: null }, arrival: 'constant' }),
    });
    await runLevelInWorkers(opts);
    const measured = records.filter((r) => !r.warmup).sort((a, b) => a.scheduledMs - b.scheduledMs);
    expect(measured).toHaveLength(24);
    // constant arrivals at 200/s: due times 5 ms apart on one schedule, whichever worker sent them
    for (let i = 1; i < measured.length; i++)
      expect(measured[i]!.scheduledMs - measured[i - 1]!.scheduledMs).toBeCloseTo(5, 6);
  });

  it('holds an open-loop max_concurrency across all workers, as one thread would', async () => {
    const { opts, records } = pool(performance.now(), {
      workers: 4,
      shape: shape({ level: { kind: 'rate', value: 1000, maxConcurrency: 3 }, arrival: 'constant' }),
    });
    maxActive = 0;
    await runLevelInWorkers(opts);
    expect(records.filter((r) => !r.warmup && r.error === null)).toHaveLength(24);
    // each of 4 workers holding its own slot would reach 4; the shared cap holds 3
    expect(maxActive).toBe(3);
  });

  it('judges the error-rate stop over all workers’ records and stops every worker', async () => {
    const { opts, records } = pool(performance.now(), {
      shape: shape({
        requests: null,
        durationMs: 60_000,
        warmup: 0,
        errorStop: { rate: 0.5, minRequests: 10 },
      }),
    });
    opts.job.requests = opts.job.requests.map((r) => ({ ...r, path: '/v1/fail' }));
    const result = await runLevelInWorkers(opts);
    expect(result.errorStop?.topCode).toBe('BG_E_HTTP_STATUS');
    expect(result.errorStop?.total).toBeGreaterThanOrEqual(10);
    // every worker stopped: the 60 s level ended long before its duration
    expect(records.length).toBeGreaterThanOrEqual(10);
    expect(result.interrupted).toBe(false);
  });

  it('forwards an interrupt to every worker and reports it', async () => {
    const stop = new AbortController();
    const { opts, records } = pool(performance.now(), {
      shape: shape({ requests: null, durationMs: 60_000 }),
      signal: stop.signal,
      onRecord: (r) => {
        records.push(r);
        if (records.length === 10) stop.abort();
      },
    });
    const result = await runLevelInWorkers(opts);
    expect(result.interrupted).toBe(true);
  });

  it('fails with the worker’s own error, not a hang, when a worker throws', async () => {
    const { opts } = pool(performance.now());
    opts.job.headers = { 'bad\nheader': 'x' };
    const e = await runLevelInWorkers(opts).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BenchgateError);
    expect((e as BenchgateError).code).toBe('BG_E_PLAN_INVALID');
  });

  it("fails with the record writer's own error (a full disk), stopping every worker", async () => {
    const { opts } = pool(performance.now(), {
      onRecord: () => {
        throw new BenchgateError('BG_E_DISK', 'no space left on device', { exitCode: 3 });
      },
    });
    const e = await runLevelInWorkers(opts).catch((x: unknown) => x);
    expect((e as BenchgateError).code).toBe('BG_E_DISK');
  });

  it('fails with BG_E_WORKER when a worker exits before finishing its share', async () => {
    const { opts } = pool(performance.now(), {
      onWorker: (w, i) => {
        if (i === 1) w.once('online', () => void w.terminate());
      },
    });
    const e = await runLevelInWorkers(opts).catch((x: unknown) => x);
    expect((e as BenchgateError).code).toBe('BG_E_WORKER');
    expect((e as BenchgateError).message).toMatch(/load worker 1 failed: .*exited/);
  });

  /** Runs `fn` with worker `index` told to busy-loop forever (its event loop blocked). */
  async function withSpinningWorker<T>(index: number, fn: () => Promise<T>): Promise<T> {
    process.env[WORKER_FAULT_ENV] = `spin:${index}`;
    try {
      return await fn();
    } finally {
      delete process.env[WORKER_FAULT_ENV];
    }
  }

  it('fails with BG_E_WORKER when a worker stops answering (a busy loop), instead of hanging', async () => {
    const { opts } = pool(performance.now(), { silenceLimitMs: 1000 });
    const e = await withSpinningWorker(1, () => runLevelInWorkers(opts).catch((x: unknown) => x));
    expect((e as BenchgateError).code).toBe('BG_E_WORKER');
    expect((e as BenchgateError).message).toMatch(/load worker 1 failed: it stopped answering for \d+ s/);
  });

  it('stops at the first interrupt even when a worker busy-loops: it is ended after the grace', async () => {
    const stop = new AbortController();
    const { opts } = pool(performance.now(), {
      shape: shape({ requests: null, durationMs: 60_000 }),
      signal: stop.signal,
      interruptGraceMs: 500,
      silenceLimitMs: 120_000,
    });
    const started = performance.now();
    const result = await withSpinningWorker(0, () => {
      setTimeout(() => stop.abort(), 1500);
      return runLevelInWorkers(opts);
    });
    expect(result.interrupted).toBe(true);
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('resolves auto to the cores but one, at least one', () => {
    expect(resolveWorkerCount('auto', 8)).toBe(7);
    expect(resolveWorkerCount('auto', 1)).toBe(1);
    expect(resolveWorkerCount(3, 8)).toBe(3);
  });
});
