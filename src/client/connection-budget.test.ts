// The connection budget (README "Connections"): at concurrency C the real `benchgate bench` holds at
// most C + 2 connections to the server at any time, so a server whose HTTP threads are few and held by
// idle keep-alive sockets (llama-server before its dynamic pool: n_parallel + 2 = 6 with -np 4) is not
// starved. The simulated llama-server below serves exactly 6 connections at once and counts the most
// it ever had open.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { startSimulator } from '../sim/index.js';

const HTTP_THREADS = 6;

function planFile(url: string, dir: string, concurrency: number): string {
  const path = join(dir, 'plan.yaml');
  writeFileSync(
    path,
    [
      'target: { url: URL, engine: auto, api: completions }'.replace('URL', url),
      'workload: { input_tokens: { fixed: 24 }, output_tokens: { fixed: 8 } }',
      `load: { kind: concurrency, levels: [${concurrency}], requests: 24, warmup: 2 }`,
      'telemetry: { interval_ms: 200, gpus: false }',
      `output: ${join(dir, 'runs')}`,
      '',
    ].join('\n'),
  );
  return path;
}

interface Summary {
  levels: { requests: { completed: number; failed: number; retried?: number }; errorsByCode: object }[];
}

const CASES = [
  { concurrency: 1, faults: [] as string[], what: '' },
  { concurrency: 4, faults: [] as string[], what: '' },
  // llama-server b7501 closes the connection after every streamed answer while announcing keep-alive
  { concurrency: 4, faults: ['close-after-stream'], what: ', against a server closing each stream' },
];

describe('connection budget against a server with few HTTP threads', () => {
  for (const { concurrency, faults, what } of CASES) {
    it(`bench at concurrency ${concurrency} completes with no failure and at most ${concurrency} + 2 connections${what}`, async () => {
      const sim = await startSimulator({
        faults,
        flavor: 'llamacpp',
        profile: 'fixed',
        ttftMs: 5,
        itlMs: 2,
        loadTimeS: 0,
        httpThreads: HTTP_THREADS,
        engineArgs: ['-m', 'models/tiny.gguf', '-np', '4', '--metrics', '--slots'],
      });
      try {
        await sim.ready;
        const dir = mkdtempSync(join(tmpdir(), 'bg-conn-budget-'));
        const r = await runCli(['bench', planFile(sim.url, dir, concurrency), '--json']);
        expect(r.stderr).not.toMatch(/BG_E_TOKENIZER|BG_E_CONNECT/);
        expect(r.code).toBe(0);
        const summary = JSON.parse(r.stdout) as Summary;
        expect(summary.levels[0].requests).toMatchObject({ completed: 24, failed: 0 });
        expect(summary.levels[0].errorsByCode).toEqual({});
        // learnt from the first close, so at most a request or two raced it (event-loop lag on a busy host)
        expect(summary.levels[0].requests.retried).toBeLessThanOrEqual(faults.length > 0 ? 2 : 0);
        const seen = (await (await fetch(`${sim.url}/_sim/connections`)).json()) as {
          peakOpen: number;
          peakWaiting: number;
        };
        expect(seen.peakOpen).toBeLessThanOrEqual(concurrency + 2);
        expect(seen.peakWaiting).toBe(0);
      } finally {
        await sim.close();
      }
    }, 120_000);
  }
});
