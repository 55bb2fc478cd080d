import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { startSimulator } from '../sim/index.js';

// The real `benchgate bench` CLI against the simulator's start-up and error faults (issue 12 items 7, 8).

const bench = (args: string[]) => runCli(['bench', ...args]);

function planFile(url: string, out: string, expectLines: string[]): string {
  const path = join(out, 'plan.yaml');
  writeFileSync(
    path,
    [
      'target:',
      `  url: ${url}`,
      '  engine: auto',
      '  api: completions',
      'workload: { input_tokens: { fixed: 8 }, output_tokens: { fixed: 4 } }',
      'load: { kind: concurrency, levels: [1], requests: 2 }',
      `output: ${join(out, 'runs')}`,
      'expect:',
      ...expectLines.map((l) => `  ${l}`),
      '',
    ].join('\n'),
  );
  return path;
}

const sglangSim = (fault: string) =>
  startSimulator({
    host: '127.0.0.1',
    port: 0,
    flavor: 'sglang',
    profile: 'fixed',
    loadTimeS: 0,
    faults: [fault],
  });

describe('bench CLI under start-up and error faults', () => {
  it('waits for a loading server (slow-start) within expect.wait before listing its models, with no model given', async () => {
    const sim = await sglangSim('slow-start=8'); // longer than the CLI's own start-up
    try {
      const out = mkdtempSync(join(tmpdir(), 'bg-cli-slow-'));
      const r = await bench([planFile(sim.url, out, ['wait: 30s']), '--json']);
      expect(r.stderr).not.toMatch(/lists no model/);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout) as { levels: { requests: { completed: number } }[] };
      expect(summary.levels[0].requests.completed).toBe(2);
    } finally {
      await sim.close();
    }
  });

  it('keeps a run directory with the checkpoint and the failure when the first request fails after the checkpoint passed (http-errors=1)', async () => {
    const sim = await sglangSim('http-errors=1');
    try {
      await sim.ready;
      const out = mkdtempSync(join(tmpdir(), 'bg-cli-smoke-'));
      const r = await bench([planFile(sim.url, out, ['smoke: false']), '--json']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/trying again/);
      expect(r.stderr).toMatch(/failed 4 times in a row; the last: HTTP 50[03]/);
      expect(r.stderr).toMatch(/BG_E_HTTP_STATUS/);
      const runs = readdirSync(join(out, 'runs'));
      expect(runs).toHaveLength(1);
      const dir = join(out, 'runs', runs[0]);
      expect(r.stderr).toContain(dir);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
        checkpoint: { ok: boolean } | null;
      };
      expect(manifest.checkpoint?.ok).toBe(true);
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
        levels: unknown[];
        incomplete?: { reason: string };
      };
      expect(summary.levels).toHaveLength(0);
      expect(summary.incomplete?.reason).toMatch(/after the checkpoint: .*HTTP 50[03].*\[BG_E_HTTP_STATUS\]/);
    } finally {
      await sim.close();
    }
  });

  it('re-verifies a server that restarted mid-run: the level it touched is invalid, later levels are judged against the new fingerprint (restart-after)', async () => {
    // generations: checkpoint smoke 1, bench smoke 2, level 0 3-6, level 1 7-8 then the restart; after
    // it the checkpoint's smoke is 1 again and level 2 (4 requests) stays below the next restart
    const sim = await sglangSim('restart-after=8');
    try {
      await sim.ready;
      const out = mkdtempSync(join(tmpdir(), 'bg-cli-restart-'));
      const path = planFile(sim.url, out, ['wait: 20s']);
      writeFileSync(
        path,
        readFileSync(path, 'utf8').replace('levels: [1], requests: 2', 'levels: [1, 2, 3], requests: 4'),
      );
      const r = await bench([path, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout) as {
        levels: { validity: { valid: boolean; reasons: string[] } }[];
        incomplete?: unknown;
      };
      expect(summary.incomplete).toBeUndefined();
      expect(summary.levels.map((l) => l.validity.valid)).toEqual([true, false, true]);
      const reasons = summary.levels[1].validity.reasons.join(' ');
      expect(reasons).toMatch(/restarted/);
      expect(reasons).toMatch(/checkpoint passed again/);
    } finally {
      await sim.close();
    }
  });
});
