// The regression gate end to end: real `benchgate bench` runs (the real CLI) against simulators the test
// starts on port 0, each added to the results store as it finishes, then `benchgate gate`. A run with no
// comparable predecessor is "nothing comparable" (exit 2); with one trial per run and no history of the
// configuration in the store the run-to-run noise is unknown, so an unchanged server passes or is
// inconclusive and even a server slowed by half is inconclusive (exit 4), never a regression; with repeated
// trials on both sides the noise is known and the slowed server is a regression (exit 1), unless the host
// delayed the client, which the gate must then call inconclusive.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchAgainstSimulator as benchAgainstSim, SHORT_LEVELS } from '../test-support/bench-sim.js';
import { runCli } from '../test-support/run-cli.js';

const results = mkdtempSync(join(tmpdir(), 'bg-gate-'));
afterAll(() => rmSync(results, { recursive: true, force: true }));

/** One bench of 2 levels against a fresh simulator (optionally with faults); returns its run directory. */
async function benchAgainstSimulator(name: string, faults: string[] = [], args?: string[]): Promise<string> {
  const r = await benchAgainstSim({ results, name, sim: { faults }, args });
  expect(r.code, r.stderr).toBe(0);
  return r.dir;
}

// Closed-loop TTFT medians of 32 requests move by tens of percent between two starts of the same server on
// a busy 2-core machine (the bootstrap sees only within-run variance), so the test judges throughput and
// TPOT, with a minimum effect the slow fault (-50%) clears by far and run-to-run noise does not reach.
const gate = (run: string, ...flags: string[]) =>
  runCli([
    'gate',
    run,
    '--results',
    results,
    '--min-effect',
    '15',
    '--metric',
    'output_throughput,tpot_p50',
    ...flags,
  ]);

const TRIALS = [...SHORT_LEVELS, '--trials', '2'];

describe('benchgate gate', () => {
  it('is never a regression while the run-to-run noise is unknown, and says why in text and JUnit', async () => {
    const first = await benchAgainstSimulator('gate-base');
    const lonely = await gate(first);
    expect(lonely.code, lonely.stdout + lonely.stderr).toBe(2);
    expect(lonely.stdout).toContain('NOTHING COMPARABLE');

    const unchanged = await benchAgainstSimulator('gate-base');
    const same = await gate(unchanged, '--against', 'last');
    expect([0, 4], same.stdout + same.stderr).toContain(same.code);
    expect(same.stdout).toMatch(/^gate: (PASS|INCONCLUSIVE)/);
    expect(same.stdout).toContain(`reference: ${first.split('/').pop()}`);
    expect(same.stdout).toContain('history:   1 earlier run(s) of this configuration, workload and host');

    const slowed = await benchAgainstSimulator('gate-base', ['slow=2']);
    const unsure = await gate(slowed, '--format', 'json');
    expect(unsure.code, unsure.stdout + unsure.stderr).toBe(4);
    const json = JSON.parse(unsure.stdout);
    expect(json.status).toBe('inconclusive');
    // the last comparable run is the unchanged one, not the first
    expect(json.reference.dir).toBe(unchanged);
    const throughput = json.checks.filter((c: { metric: string }) => c.metric === 'output_throughput');
    expect(throughput.length).toBe(2);
    for (const c of throughput) {
      expect(c.outcome).toBe('inconclusive');
      expect(c.ratio).toBeLessThan(0.8);
      expect(c.reason).toMatch(/run-to-run noise unknown|host timing noise/);
    }

    const junit = await gate(slowed, '--against', first, '--format', 'junit');
    expect(junit.code).toBe(4);
    expect(junit.stdout).toMatch(
      /<testsuites name="benchgate" tests="\d+" failures="0" errors="0" skipped="[1-9]\d*"/,
    );
    expect(junit.stdout).toMatch(
      /<testcase [^>]*name="output_throughput at c=8" time="\d+\.\d{3}"><skipped message="inconclusive: /,
    );
  }, 300_000);

  it('calls the slowed server a regression when both sides ran repeated trials', async () => {
    const base = await benchAgainstSimulator('gate-trials', [], TRIALS);
    const slowed = await benchAgainstSimulator('gate-trials', ['slow=2'], TRIALS);
    const r = await gate(slowed, '--format', 'json');
    const json = JSON.parse(r.stdout);
    expect(json.reference.dir).toBe(base);
    const throughput = json.checks.filter((c: { metric: string }) => c.metric === 'output_throughput');
    expect(throughput.length).toBe(2);
    for (const c of throughput) {
      expect(c.noise).toBe('trials');
      // a level the host delayed is inconclusive by rule; every other one is a regression
      if (c.outcome === 'inconclusive') expect(c.reason).toContain('host timing noise');
      else expect(c.outcome).toBe('regression');
    }
    const regressions = json.checks.filter((c: { outcome: string }) => c.outcome === 'regression');
    expect(r.code, r.stdout).toBe(regressions.length > 0 ? 1 : 4);
  }, 300_000);
});
