import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../sim/api.js';
import { startSimulator } from '../sim/index.js';
import { type LevelShape, runLevel } from './level-runner.js';
import { completionSender } from './test-send.js';

// A simulator answering 500/503 to every generation (the http-errors=1 fault).
let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({
    host: '127.0.0.1',
    port: 0,
    flavor: 'openai',
    profile: 'fixed',
    loadTimeS: 0,
    faults: ['http-errors=1'],
  });
  await sim.ready;
});
afterAll(() => sim.close());

const origin = performance.now();
const send = completionSender(
  () => sim.url,
  { model: 'm', prompt: 'x', max_tokens: 2, stream: true },
  2,
  origin,
);

const shape = (over: Partial<LevelShape>): LevelShape => ({
  levelIndex: 0,
  level: { kind: 'concurrency', value: 2 },
  requests: null,
  durationMs: null,
  warmup: 0,
  arrival: 'poisson',
  burstiness: 1,
  seed: 1,
  ...over,
});

describe('failed requests against a server answering 5xx to everything (http-errors=1)', () => {
  it('closed loop: backs off after each failure instead of re-sending at once', async () => {
    // 1.5 s of a level; with no back-off this sends hundreds of failing requests.
    const r = await runLevel({
      shape: shape({ durationMs: 1500, backoff: { initialMs: 200, maxMs: 1000 }, errorStop: null }),
      send,
    });
    expect(r.records.length).toBeGreaterThan(1);
    expect(r.records.every((x) => x.error?.code === 'BG_E_HTTP_STATUS')).toBe(true);
    // each worker waits ≥100, ≥200, ≥400, ≥500 ms … after its failures: at most ~6 sends per worker
    expect(r.records.length).toBeLessThanOrEqual(14);
    expect(r.errorStop).toBeNull();
  });

  it('open loop: keeps the schedule but holds sends during the back-off, the hold counted as queue time', async () => {
    const r = await runLevel({
      shape: shape({
        level: { kind: 'rate', value: 200, maxConcurrency: null },
        arrival: 'constant',
        // 600 ms of arrivals, so many fall after the first failure came back even on a busy machine
        requests: 120,
        backoff: { initialMs: 100, maxMs: 400 },
        errorStop: null,
      }),
      send,
    });
    expect(r.records).toHaveLength(120);
    // due every 5 ms; those due after the first failure came back were held and sent late
    const queuedMs = r.records.map((x) => x.sentMs - (x.scheduledMs ?? x.sentMs));
    expect(queuedMs.filter((q) => q >= 50).length).toBeGreaterThanOrEqual(10);
  });

  it('stops the level once more than the threshold failed over the minimum count, keeping the records', async () => {
    const r = await runLevel({
      shape: shape({
        requests: 500,
        backoff: { initialMs: 1, maxMs: 2 },
        errorStop: { rate: 0.5, minRequests: 20 },
      }),
      send,
    });
    expect(r.errorStop).not.toBeNull();
    expect(r.errorStop?.total).toBeGreaterThanOrEqual(20);
    expect(r.errorStop?.rate).toBe(1);
    expect(r.errorStop?.topCode).toBe('BG_E_HTTP_STATUS');
    expect(r.errorStop?.topMessage).toMatch(/HTTP 50[03]/);
    // stopped at the 20th record; the other worker's request in flight finishes and is kept
    expect(r.records.length).toBeLessThanOrEqual(22);
    expect(r.records.length).toBeGreaterThanOrEqual(r.errorStop?.total ?? 99);
  });
});
