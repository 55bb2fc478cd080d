import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { LocalHost } from '../hosts/local-host.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { RequestRecord } from '../records/request-record.js';
import { outputTokens } from '../records/request-record.js';
import { startSimulator } from '../sim/index.js';
import { type GpuTelemetry, startGpuTelemetry } from './gpu-telemetry.js';
import { type FakeGpu, fakeNvidiaSmi } from './test-support/fake-nvidia-smi.js';

// GPU sampling through a real host process: a fake nvidia-smi on PATH (deterministic power per GPU),
// read line by line, and the energy per output token the bench CLI computes from it end to end.

const GPUS: FakeGpu[] = [
  { powerW: 250.5, utilizationPct: 87, memoryUsedMiB: 40312, smClockMHz: 1980, graphicsClockMHz: 1755 },
  { powerW: 120, utilizationPct: 45, memoryUsedMiB: 20000, smClockMHz: 1410, graphicsClockMHz: 1410 },
];
const savedPath = process.env.PATH;
afterAll(() => {
  process.env.PATH = savedPath;
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('GPU sampling on a host', () => {
  it('keeps one nvidia-smi looping at the interval, reads each GPU line, counts lines that are not samples', async () => {
    process.env.PATH = `${fakeNvidiaSmi(GPUS, { garbageLine: 'WARNING: infoROM is corrupted at gpu 0000:01:00.0' })}:${savedPath}`;
    const g = await startGpuTelemetry(new LocalHost(), performance.now(), 100);
    await sleep(450);
    const out = await g.stop();
    expect(out.available).toBe(true);
    expect(out.samples.length).toBeGreaterThanOrEqual(4);
    expect(out.samples[0]).toMatchObject({ gpu: 0, powerW: 250.5, smClockMHz: 1980, graphicsClockMHz: 1755 });
    expect(out.samples[1]).toMatchObject({ gpu: 1, powerW: 120, utilizationPct: 45, memoryUsedMiB: 20000 });
    expect(out.unreadableLines).toBe(out.samples.length / 2);
    expect(out.firstUnreadable).toMatch(/infoROM/);
  });

  it('says why there is no GPU telemetry when nvidia-smi is absent or prints no sample', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'bg-no-nvsmi-'));
    process.env.PATH = empty;
    const absent: GpuTelemetry = await (await startGpuTelemetry(new LocalHost(), 0, 100)).stop();
    expect(absent).toMatchObject({ available: false, samples: [] });
    expect(absent.reason).toMatch(/nvidia-smi could not be started on local/);

    writeFileSync(join(empty, 'nvidia-smi'), '#!/bin/sh\necho "No devices were found"\nexit 6\n', {
      mode: 0o755,
    });
    const started = await startGpuTelemetry(new LocalHost(), 0, 100);
    await sleep(300);
    const none = await started.stop();
    expect(none.reason).toMatch(/found no GPU/);
    process.env.PATH = savedPath;
  });
});

describe('bench with GPU telemetry (fake nvidia-smi on PATH)', () => {
  it('writes gpu-level-NN.json and energyPerTokenJ = Σ power × measured window / output tokens', async () => {
    const sim = await startSimulator({
      host: '127.0.0.1',
      port: 0,
      flavor: 'vllm',
      profile: 'fixed',
      loadTimeS: 0,
    });
    try {
      const out = mkdtempSync(join(tmpdir(), 'bg-gpu-bench-'));
      const plan = join(out, 'plan.yaml');
      writeFileSync(
        plan,
        [
          `target: { url: ${sim.url}, api: completions }`,
          'workload: { input_tokens: { fixed: 32 }, output_tokens: { fixed: 64 } }',
          'load: { kind: concurrency, levels: [2], duration: 2s, warmup: 0 }',
          'telemetry: { interval_ms: 200 }',
          `output: ${join(out, 'runs')}`,
          '',
        ].join('\n'),
      );
      const r = await runCli(['bench', plan, '--json'], {
        env: { PATH: `${fakeNvidiaSmi(GPUS)}:${savedPath}` },
      });
      expect(r.code, r.stderr).toBe(0);
      const runDir = join(out, 'runs', readdirSync(join(out, 'runs'))[0]);
      const gpu = JSON.parse(readFileSync(join(runDir, 'gpu-level-00.json'), 'utf8')) as GpuTelemetry;
      expect(gpu).toMatchObject({ available: true, host: 'local', intervalMs: 200, unreadableLines: 0 });
      expect(new Set(gpu.samples.map((s) => s.gpu))).toEqual(new Set([0, 1]));
      expect(gpu.samples.length).toBeGreaterThanOrEqual(10);

      const level = JSON.parse(readFileSync(join(runDir, 'level-00.json'), 'utf8')) as LevelSummary;
      const records = readFileSync(join(runDir, 'requests.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as RequestRecord)
        .filter((x) => !x.warmup);
      const tokens = records.filter((x) => x.error === null).reduce((a, x) => a + outputTokens(x), 0);
      const windowS =
        (Math.max(...records.map((x) => x.endMs)) - Math.min(...records.map((x) => x.sentMs))) / 1000;
      // constant power: the trapezoid integral is exactly (250.5 + 120) W × the measured window
      expect(level.energy).toMatchObject({ gpus: 2, outputTokens: tokens, reason: null });
      expect(level.energy?.joules).toBeCloseTo(370.5 * windowS, 6);
      expect(level.energyPerTokenJ).toBeCloseTo((370.5 * windowS) / tokens, 9);
      expect(level.energy?.meanPowerW).toBeCloseTo(370.5, 9);

      // the report shows it: a line per level (text, markdown), the figures (JSON), charts (HTML)
      const text = await runCli(['report', runDir, '--format', 'text', '--metric', 'energy_per_token']);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/^Energy\/token \(J\/tok\) +[\d.]+/m);
      expect(text.stdout).toMatch(
        /level c=2: KV-cache peak \d+\.\d%, mean \d+\.\d%; queue \(waiting\) peak \d+; running peak \d+ \(\d+ scrapes, 0 failed\); 2 GPUs: mean power 370\.5 W, utilisation 66\.0%, peak memory 40312 MiB \(\d+ samples per GPU\); [\d.]+ J\/output token/,
      );
      const json = JSON.parse((await runCli(['report', runDir, '--format', 'json'])).stdout);
      expect(json.telemetry[0]).toMatchObject({ levelIndex: 0, gpu: { gpus: 2, available: true } });
      expect(json.telemetry[0].energyPerTokenJ).toBeCloseTo(level.energyPerTokenJ as number, 9);
      expect(json.telemetry[0].charts).toBeUndefined();
      const html = (await runCli(['report', runDir, '--format', 'html'])).stdout;
      for (const id of ['telemetry-0', 'telemetry-latency-0', 'telemetry-gpu-0'])
        expect(html).toContain(`id="chart-r0-${id}"`);
    } finally {
      await sim.close();
    }
  });
});
