import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from './index.js';
import { simulatorsClosedAfterEach } from './testing/fast-sim.js';
import { post, sseEvents } from './testing/sse.js';

const { sim, closeAfterTest } = simulatorsClosedAfterEach();

const streamBody = (n: number) => ({ text: 'a b c', sampling_params: { max_new_tokens: n }, stream: true });

/** Reads SSE text until the stream ends or no byte arrives for quietMs; reports which happened. */
async function readUntilQuiet(res: Response, quietMs: number): Promise<{ text: string; ended: boolean }> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = '';
  for (;;) {
    const next = await Promise.race([
      reader.read(),
      new Promise<'quiet'>((r) => setTimeout(() => r('quiet'), quietMs)),
    ]);
    if (next === 'quiet') {
      await reader.cancel();
      return { text, ended: false };
    }
    if (next.done) return { text, ended: true };
    text += dec.decode(next.value);
  }
}

describe('simulator faults', () => {
  it('crash-on-first-decode: healthy start, then a traceback ending in AttributeError, a non-zero exit and no more serving', async () => {
    const { h, lines } = await sim({ faults: ['crash-on-first-decode'] });
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
    const outcome = await post(`${h.url}/generate`, streamBody(10))
      .then((r) => r.text())
      .then(
        (t) => (t.includes('[DONE]') ? 'completed' : 'truncated'),
        () => 'failed',
      );
    expect(outcome).not.toBe('completed');
    const exit = await h.exited!;
    expect(exit.code).not.toBe(0);
    const tb = lines.findIndex((l) => l.includes('Traceback (most recent call last):'));
    expect(tb).toBeGreaterThan(0);
    expect(lines.slice(tb).find((l) => l.startsWith('AttributeError:'))).toBe(
      "AttributeError: 'NoneType' object has no attribute 'forward_batch_generation'",
    );
    await expect(fetch(`${h.url}/health`)).rejects.toThrow();
  });

  it('slow=X stretches generation X times in real time and changes nothing the server reports', async () => {
    const timed = async (faults: string[]) => {
      const { h } = await sim({ timeScale: 1, faults });
      const info = (await (await fetch(`${h.url}/server_info`)).json()) as Record<string, unknown>;
      await (await post(`${h.url}/generate`, streamBody(4))).text(); // connection and first-step costs
      const t0 = performance.now();
      await (await post(`${h.url}/generate`, streamBody(64))).text();
      return { ms: performance.now() - t0, info: { ...info, port: null, internal_states: null } };
    };
    const normal = await timed([]);
    const slow = await timed(['slow=4']);
    expect(slow.ms).toBeGreaterThan(normal.ms * 2);
    expect(slow.info).toEqual(normal.info);
  });

  it('slow-start=S keeps /health at 503 for S more seconds', async () => {
    // long enough that a busy machine still asks before the slow start ends
    const h = closeAfterTest(await startSimulator({ loadTimeS: 0, faults: ['slow-start=3'] }));
    expect((await fetch(`${h.url}/health`)).status).toBe(503);
    await h.ready;
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
  });

  it('stall-stream: a stream stops sending mid-way without ending', async () => {
    const { h } = await sim({ faults: ['stall-stream'] });
    const { text, ended } = await readUntilQuiet(await post(`${h.url}/generate`, streamBody(40)), 400);
    expect(ended).toBe(false);
    expect(text).not.toContain('[DONE]');
    const counts = [...text.matchAll(/"completion_tokens":(\d+)/g)].map((m) => Number(m[1]));
    expect(counts.length).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan(40);
  });

  it('malformed-chunk: one event is not valid JSON, the stream still finishes', async () => {
    const { h } = await sim({ faults: ['malformed-chunk'] });
    const events = await sseEvents(await post(`${h.url}/generate`, streamBody(20)));
    expect(events.at(-1)).toBe('[DONE]');
    const bad = events.slice(0, -1).filter((e) => {
      try {
        JSON.parse(e);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad).toHaveLength(1);
  });

  it('reset-mid-stream: the connection is reset after some tokens', async () => {
    const { h } = await sim({ faults: ['reset-mid-stream'] });
    const res = await post(`${h.url}/generate`, streamBody(40));
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('http-errors=RATE answers that fraction of generation requests with 500 or 503, reproducibly', async () => {
    const run = async () => {
      const { h } = await sim({ faults: ['http-errors=0.5'], seed: 3 });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const r = await post(`${h.url}/generate`, { text: 'a', sampling_params: { max_new_tokens: 1 } });
        await r.text();
        statuses.push(r.status);
      }
      return statuses;
    };
    const a = await run();
    expect(a.filter((s) => s === 200).length).toBeGreaterThan(5);
    expect(a.filter((s) => s === 500 || s === 503).length).toBeGreaterThan(5);
    expect(a.every((s) => [200, 500, 503].includes(s))).toBe(true);
    expect(await run()).toEqual(a);
  });

  it('stale-log: the log file begins with an earlier start of a different configuration', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'bg-stale-')), 'server.log');
    await sim({ faults: ['stale-log'], logFile, engineArgs: ['--tp-size', '8'] });
    const lines = readFileSync(logFile, 'utf8').trimEnd().split('\n');
    const starts = lines.filter((l) => l.includes('server_args=ServerArgs('));
    expect(starts).toHaveLength(2);
    expect(lines[0]).toBe(starts[0]);
    expect(starts[0]).toContain("speculative_algorithm='EAGLE3'");
    expect(starts[1]).toContain('speculative_algorithm=None');
    expect(starts[0].slice(1, 20) < starts[1].slice(1, 20)).toBe(true);
  });

  it('config-drift: serves overlap off although spec v2 turned it on in the log', async () => {
    const { h, lines } = await sim({
      faults: ['config-drift'],
      engineArgs: ['--speculative-algorithm', 'EAGLE3', '--speculative-eagle-topk', '1'],
      env: { SGLANG_ENABLE_SPEC_V2: '1' },
    });
    expect(lines[0]).toContain('disable_overlap_schedule=False');
    const info = (await (await fetch(`${h.url}/server_info`)).json()) as Record<string, unknown>;
    expect(info.disable_overlap_schedule).toBe(true);
  });

  it('restart-after=N: after N requests the process restarts with a new start time and a new start log', async () => {
    const { h, lines } = await sim({ faults: ['restart-after=2'] });
    const startTime = async () =>
      Number(/^process_start_time_seconds (\S+)$/m.exec(await (await fetch(`${h.url}/metrics`)).text())![1]);
    const t0 = await startTime();
    for (let i = 0; i < 2; i++)
      await (await post(`${h.url}/generate`, { text: 'a', sampling_params: { max_new_tokens: 2 } })).json();
    await new Promise((r) => setTimeout(r, 50));
    const truth = (await (await fetch(`${h.url}/_sim/requests`)).json()) as { restarts: number };
    expect(truth.restarts).toBe(1);
    expect(await startTime()).toBeGreaterThan(t0);
    expect(lines.filter((l) => l.includes('server_args=ServerArgs(')).length).toBe(2);
    expect(lines.filter((l) => l.includes('The server is fired up and ready to roll!')).length).toBe(2);
  });

  it('slow-metrics=MS answers /metrics MS ms late with the counters of that moment', async () => {
    const { h } = await sim({ faults: ['slow-metrics=400'] });
    const asked = performance.now();
    const pending = fetch(`${h.url}/metrics`).then(async (r) => ({
      at: performance.now(),
      text: await r.text(),
    }));
    // a request that arrives while the scrape waits is in the counters it answers with
    await (await post(`${h.url}/generate`, streamBody(2))).text();
    const answer = await pending;
    expect(answer.at - asked).toBeGreaterThanOrEqual(390);
    expect(answer.text).toMatch(/^sglang:prompt_tokens_total\{[^}]*\} 3(\.0)?$/m);
  });

  it('rejects an unknown fault name or a bad value with one sentence', async () => {
    await expect(startSimulator({ faults: ['explode'] })).rejects.toThrowError(
      /Expected a fault name among crash-on-first-decode, .* found "explode"/,
    );
    await expect(startSimulator({ faults: ['http-errors=2'] })).rejects.toThrowError(
      'Fault "http-errors=2" expects a fraction between 0 and 1 after "=".',
    );
    await expect(startSimulator({ faults: ['slow-metrics=0'] })).rejects.toThrowError(
      'Fault "slow-metrics=0" expects a delay in ms (more than 0, at most 60000), e.g. slow-metrics=500.',
    );
  });
});
