// bench's end table reads the run's one validity judgement, as report does: the same prompts sent twice
// to one SGLang simulator (the same salt) come back from its prefix cache, and the second run's table
// says SUSPECT and why, exactly where `report` says it, never "valid" beside a suspect report.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRun } from '../../results/read-run.js';
import { type SimulatorHandle, startSimulator } from '../../sim/index.js';
import { runCli } from '../test-support/run-cli.js';

let sim: SimulatorHandle;
const out = mkdtempSync(join(tmpdir(), 'bg-bench-validity-'));

beforeAll(async () => {
  sim = await startSimulator({ host: '127.0.0.1', port: 0, loadTimeS: 0, timeScale: 0.5 });
  await sim.ready;
});
afterAll(async () => {
  await sim.close();
  rmSync(out, { recursive: true, force: true });
});

async function bench(name: string): Promise<{ stdout: string; dir: string }> {
  const r = await runCli([
    ...['bench', '--url', sim.url, '--concurrency', '4', '--requests', '12', '--salt', '7'],
    ...['--input-tokens', '256', '--output-tokens', '16', '--name', name, '--out', join(out, name)],
  ]);
  expect(r.code, r.stderr).toBe(0);
  return { stdout: r.stdout, dir: join(out, name, readdirSync(join(out, name))[0]) };
}

describe("bench's end table", () => {
  it('calls a level served from the prefix cache SUSPECT, with the reason report gives', async () => {
    await bench('first');
    const second = await bench('second');
    const row = second.stdout.split('\n').find((l) => l.startsWith('c=4 '));
    expect(row?.trimEnd().endsWith('SUSPECT'), second.stdout).toBe(true);
    expect(second.stdout).toMatch(/^validity: SUSPECT$/m);
    expect(second.stdout).toMatch(
      /^ {2}c=4: SUSPECT: .*Prefix cache: 9\d\.\d% of the measured prompt tokens/m,
    );

    // the run files hold the same judgement, and report says the same
    const run = await readRun(second.dir);
    expect(run.validity?.levels['concurrency:4:']?.status).toBe('suspect');
    expect(run.summary.levels[0].judgement?.reasons.map((r) => r.check)).toContain('prefix-cache');
    const report = await runCli(['report', second.dir]);
    expect(report.stdout).toMatch(/c=4: SUSPECT: .*Prefix cache: 9\d\.\d%/);
  }, 240_000);
});
