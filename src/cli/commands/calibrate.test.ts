import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Calibration } from '../../session/calibration-file.js';
import { cliNodeArgs } from '../test-support/cli-argv.js';

// The real CLI in its own process (cli-argv.ts); the calibration file goes to a temporary path.
/** Runs the CLI to completion (nothing else runs in this test's process meanwhile). */
async function run(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [...cliNodeArgs(), ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('benchgate calibrate', () => {
  it('prints the capacity table, saves it, and bench flags a level beyond it before running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-calibrate-'));
    const file = join(dir, 'calibration.json');
    const env = { BENCHGATE_CALIBRATION: file };

    const cal = await run(['calibrate', '--quick'], env);
    expect(cal.stderr).not.toMatch(/\n\s+at /);
    expect(cal.code).toBe(0);
    const lines = cal.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^benchgate client calibration — \d+ cores, .+, node v\d+/);
    const header = lines.findIndex((l) => l.startsWith('concurrency'));
    for (const col of ['req/s/core', 'tokens/s/core', 'SSE events/s/core', 'client TTFT', 'stall %'])
      expect(lines[header]).toContain(col);
    const rows = lines.slice(header + 1, header + 3).map((l) => l.trim().split(/\s+/));
    expect(rows.map((r) => r[0])).toEqual(['1', '8']);
    expect(lines.at(-1)).toMatch(
      /^capacity per core: \d+ requests\/s, \d+ streamed tokens\/s, \d+ SSE events\/s;/,
    );
    expect(cal.stderr).toContain(`calibration saved to ${file}`);

    const saved = JSON.parse(readFileSync(file, 'utf8')) as Calibration;
    expect(saved.schema).toBe('benchgate.calibration/1');
    expect(saved.levels.map((l) => l.concurrency)).toEqual([1, 8]);
    expect(saved.machine.cores).toBeGreaterThan(0);
    expect(saved.machine.node).toBe(process.version);
    for (const l of saved.levels) {
      expect(l.errors).toBe(0);
      expect(l.requests).toBeGreaterThan(0);
      expect(l.tokensPerCoreS).toBeGreaterThan(0);
      // every measured request paired with the server's own write time
      expect(l.clientAddedTtftMeanMs).not.toBeNull();
    }

    // 16 is beyond the quick sweep's largest concurrency (8): flagged on stderr and in the manifest
    const out = join(dir, 'runs');
    const bench = await run(
      [
        'bench',
        '--concurrency',
        '16',
        '--requests',
        '4',
        '--input-tokens',
        '8',
        '--output-tokens',
        '4',
        '--out',
        out,
      ],
      env,
    );
    expect(bench.code).toBe(0);
    expect(bench.stderr).toMatch(/benchgate: warning: concurrency 16/);
    const [runDir] = readdirSync(out);
    const manifest = JSON.parse(readFileSync(join(out, runDir, 'manifest.json'), 'utf8'));
    expect(manifest.capacityNotes).toHaveLength(1);
    expect(manifest.capacityNotes[0]).toMatch(/^concurrency 16/);
  }, 120_000);
});
