// The regression gate end to end: real `benchgate bench` runs (the real CLI) against simulators the test
// starts on port 0, each added to the results store as it finishes, then `benchgate gate`: an unchanged
// server passes (exit 0), the same configuration slowed by the simulator's slow fault is a regression
// (exit 1), and a run with no comparable predecessor is "nothing comparable" (exit 2).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchAgainstSimulator as benchAgainstSim } from '../test-support/bench-sim.js';
import { runCli } from '../test-support/run-cli.js';

const results = mkdtempSync(join(tmpdir(), 'bg-gate-'));
afterAll(() => rmSync(results, { recursive: true, force: true }));

/** One bench of 2 levels against a fresh simulator (optionally with faults); returns its run directory. */
async function benchAgainstSimulator(name: string, faults: string[] = []): Promise<string> {
  const r = await benchAgainstSim({ results, name, sim: { faults } });
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

describe('benchgate gate', () => {
  it('passes an unchanged server, fails the same config slowed by a fault, and says when nothing is comparable', async () => {
    const first = await benchAgainstSimulator('gate-base');
    const lonely = await gate(first);
    expect(lonely.code, lonely.stdout + lonely.stderr).toBe(2);
    expect(lonely.stdout).toContain('NOTHING COMPARABLE');

    const unchanged = await benchAgainstSimulator('gate-base');
    const pass = await gate(unchanged, '--against', 'last');
    expect(pass.code, pass.stdout + pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(/^gate: PASS/);
    expect(pass.stdout).toContain(`reference: ${first.split('/').pop()}`);

    const slowed = await benchAgainstSimulator('gate-base', ['slow=2']);
    const fail = await gate(slowed, '--format', 'json');
    expect(fail.code, fail.stdout + fail.stderr).toBe(1);
    const json = JSON.parse(fail.stdout);
    expect(json.status).toBe('regression');
    // the last comparable run is the unchanged one, not the first
    expect(json.reference.dir).toBe(unchanged);
    const throughput = json.checks.filter((c: { metric: string }) => c.metric === 'output_throughput');
    expect(throughput.length).toBe(2);
    for (const c of throughput) {
      expect(c.outcome).toBe('regression');
      expect(c.ratio).toBeLessThan(0.8);
    }

    const junit = await gate(slowed, '--against', first, '--format', 'junit');
    expect(junit.code).toBe(1);
    expect(junit.stdout).toMatch(/<testsuites name="benchgate" tests="\d+" failures="[1-9]\d*"/);
    expect(junit.stdout).toContain('<failure message="Output tok/s at c=8: -');
  }, 240_000);
});
