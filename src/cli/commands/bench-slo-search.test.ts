// `benchgate bench examples/slo-search.yaml`, through the real CLI, against a simulator started here: a
// faster variant of the example (shorter requests, 90% of requests judged on the p90 sample floor of 64,
// probes from 8 to at most 32 req/s) so it finishes in seconds. The answer must be a rate the simulator
// sustained: achieved at least 95% of offered over the probe's steady window, on enough samples. The
// bracket is kept on the rates the probes offered (not the nominal ones asked for), the answer is
// confirmed by a second probe, and it carries a 95% interval.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { SloSearchRecord } from '../../results/slo-search-record.js';
import { simulatorsClosedAfterEach } from '../../sim/testing/fast-sim.js';
import { runCli } from '../test-support/run-cli.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'examples', 'slo-search.yaml');
const { sim } = simulatorsClosedAfterEach();

describe('benchgate bench examples/slo-search.yaml', () => {
  it('answers with a rate the simulator sustained, and reports the evidence', async () => {
    const { h } = await sim({ timeScale: 5 });
    const dir = mkdtempSync(join(tmpdir(), 'bg-slo-example-'));
    const plan = parse(readFileSync(EXAMPLE, 'utf8'));
    plan.target.url = h.url;
    plan.workload = { input_tokens: { fixed: 128 }, output_tokens: { fixed: 16 } };
    Object.assign(plan.load.slo_search, { share: 0.9, start: 8, max: 32, precision: 4, max_probes: 6 });
    const planPath = join(dir, 'slo-search.yaml');
    writeFileSync(planPath, stringify(plan));

    const r = await runCli(['bench', planPath, '--out', dir]);
    expect(r.code, r.stderr).toBe(0);
    const runDir = /results: (.+)/.exec(r.stdout)?.[1]?.trim() ?? '';
    const s = JSON.parse(readFileSync(join(runDir, 'slo-search.json'), 'utf8')) as SloSearchRecord;
    expect(s.best, r.stderr).not.toBeNull();
    const best = s.best as number;
    // the bracket's ends are rates some probe offered, not nominal rates
    const answer = s.probes.find((p) => p.offered === best && p.outcome === 'pass');
    expect(answer, JSON.stringify(s.probes)).toBeDefined();
    expect(answer?.offered).toBe(answer?.evidence?.offered);
    if (s.firstFail !== null)
      expect(s.probes.some((p) => p.offered === s.firstFail && p.outcome === 'fail')).toBe(true);
    const atAnswer = s.probes.filter((p) => p.value === answer?.value);
    expect(atAnswer.length).toBeGreaterThanOrEqual(2); // probed, then confirmed
    expect(s.confirmed).toBe(true);
    for (const p of atAnswer) {
      expect(p.outcome).toBe('pass');
      const e = p.evidence!;
      expect(e.achieved / e.offered).toBeGreaterThanOrEqual(0.95);
      expect(e.samples).toBeGreaterThanOrEqual(64);
      expect(e.steady?.windowS).toBeGreaterThan(0);
    }
    const i = s.interval!;
    expect(i.probes).toBe(s.probes.length);
    expect(i.low as number).toBeLessThanOrEqual(i.estimate as number);
    expect(i.high as number).toBeGreaterThanOrEqual(i.estimate as number);
    expect(r.stderr).toMatch(
      new RegExp(`slo_search at ${answer?.value} req/s: pass: achieved [\\d.]+ of [\\d.]+ req/s`),
    );
    expect(r.stderr).toMatch(/offered \(lowest failing: [^;]*; 95% interval [\d.]+–[\d.]+ over \d+ probes/);

    const report = await runCli(['report', runDir]);
    expect(report.stdout).toMatch(
      new RegExp(
        `evidence at ${String(Number(best.toFixed(3))).replace('.', '\\.')} req/s: achieved [\\d.]+ of [\\d.]+ req/s \\(\\d+(\\.\\d)?%\\) over a`,
      ),
    );
    expect(report.stdout).toContain('a probe must achieve 95% of its offered load');
    expect(report.stdout).toMatch(
      /req\/s offered \(.*; 95% interval [\d.≤≥ ]+–[\d.≤≥ ]+ req\/s over \d+ probes; confirmed by a second probe\)/,
    );
  }, 240_000);
});
