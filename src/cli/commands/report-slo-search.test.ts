// `benchgate report` and `benchgate compare` of load.kind slo_search runs: a real search against the
// embedded simulator, reported in every format by the real CLI; compare verdicts on the found loads from
// copies of that run whose slo-search.json the run store's writer rewrote with known brackets; and a broken
// slo-search.json read as unreadable, not a crash.

import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { silentProgress } from '../../load/progress.js';
import { loadPlanFile } from '../../plan/load.js';
import {
  SLO_SEARCH_FILE,
  type SloSearchRecord,
  writeSloSearchRecord,
} from '../../results/slo-search-file.js';
import { runBench } from '../../session/run-bench.js';
import { smallConcurrencySearch } from '../../session/test-support/slo-search-plan.js';
import { runCli } from '../test-support/run-cli.js';

const examples = join(import.meta.dirname, '..', '..', '..', 'examples');
let runDir = '';
let search: SloSearchRecord;

beforeAll(async () => {
  const plan = await loadPlanFile(join(examples, 'slo-search.yaml'));
  plan.output = mkdtempSync(join(tmpdir(), 'bg-slo-report-'));
  smallConcurrencySearch(plan);
  const res = await runBench({
    plan,
    simulator: { timeScale: 10 },
    simulatorInProcess: true,
    progress: silentProgress,
  });
  runDir = res.runDir;
  search = JSON.parse(readFileSync(join(runDir, SLO_SEARCH_FILE), 'utf8'));
}, 120_000);

/**
 * A copy of the real run named `name`, whose search outcome says it found `best` with first fail
 * `firstFail`; with `keepInterval` the real search's interval stays, else it is dropped (a file written
 * before answers carried one).
 */
function copyWithBracket(
  name: string,
  best: number | null,
  firstFail: number | null,
  keepInterval = false,
): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'bg-slo-cmp-')), name);
  cpSync(runDir, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, name }));
  const { schema: _schema, interval, ...rest } = search;
  writeSloSearchRecord(dir, {
    ...rest,
    ...(keepInterval ? { interval } : {}),
    over: 'rate',
    best,
    firstFail,
    stoppedBy: 'precision',
  });
  return dir;
}

describe('benchgate report of an slo_search run', () => {
  it('leads every format with the answer, the SLOs, the precision, why it stopped and every probe in order', async () => {
    const text = await runCli(['report', runDir]);
    expect(text.code).toBe(0);
    const out = text.stdout;
    const answer =
      search.best === null
        ? 'no probed concurrency met the SLOs for 90% of requests'
        : `highest concurrency meeting the SLOs for 90% of requests: concurrency ${search.best}`;
    expect(out).toContain(answer);
    expect(out).toContain('SLOs: TTFT ≤ 45 ms, for 90% of requests');
    expect(out).not.toMatch(/slo-search \(\d+ trials\)/);
    if (search.best !== null)
      expect(out).toMatch(
        new RegExp(
          `evidence at concurrency ${search.best}: achieved [\\d.]+ of ${search.best} in flight \\(\\d+(\\.\\d+)?%\\) over a [\\d.]+ s steady window`,
        ),
      );
    expect(out).toContain('precision: 1; stopped:');
    if (search.firstFail !== null)
      expect(out).toContain(`lowest failing probe: concurrency ${search.firstFail}`);
    // the search leads: before the per-level tables
    expect(out.indexOf('SLO search')).toBeGreaterThan(-1);
    expect(out.indexOf('SLO search')).toBeLessThan(out.indexOf('Output tok/s'));
    // every probe, in the order run, with its share and pass/fail
    const rows = out
      .split('\n')
      .filter((l) =>
        /^\s{4}\d+\s+concurrency \d+\s+\S+\s+\S+ \(.*\s(pass|fail|inconclusive)(: [a-z -]+)?( \(repeat\))?$/.test(
          l,
        ),
      );
    expect(rows.map((l) => Number(l.trim().split(/\s+/)[2]))).toEqual(search.probes.map((p) => p.value));
    expect(rows.map((l) => /(pass|fail|inconclusive)(: [a-z -]+)?( \(repeat\))?$/.exec(l)?.[1])).toEqual(
      search.probes.map((p) => p.outcome),
    );

    const md = (await runCli(['report', runDir, '--format', 'markdown'])).stdout;
    expect(md).toContain('## SLO search');
    expect(md.indexOf('## SLO search')).toBeLessThan(md.indexOf('## Output tok/s'));
    expect(md.match(/^\| \d+ \| concurrency \d+ \| .* \| (pass|fail|inconclusive)[^|]* \|$/gm)).toHaveLength(
      search.probes.length,
    );

    const json = JSON.parse((await runCli(['report', runDir, '--format', 'json'])).stdout);
    expect(json.sloSearch.runs[0]).toMatchObject({
      status: 'read',
      over: 'concurrency',
      best: search.best,
      firstFail: search.firstFail,
      slo: { ttft_ms: 45 },
    });
    expect(json.sloSearch.runs[0].probes.map((p: { value: number }) => p.value)).toEqual(
      search.probes.map((p) => p.value),
    );

    const html = (await runCli(['report', runDir, '--format', 'html'])).stdout;
    expect(html).toContain('<h2 id="slo-search">SLO search</h2>');
    expect(html.indexOf('id="slo-search"')).toBeLessThan(html.indexOf('id="charts"'));

    const report = await runCli(['report', runDir, '--format', 'csv']);
    const csv = report.stdout.split('\n');
    expect(csv.filter((l) => l.includes(',slo_search_probe_share,'))).toHaveLength(search.probes.length);
    // the data leads with the answer, right after the header; the one-screen summary, prose, goes to stderr
    expect(report.stderr).toMatch(/concurrency .*SLOs/);
    expect(csv[1]).toContain(',slo_search_found,concurrency,');
    expect(csv.filter((l) => l.includes(',slo_search_probe_achieved,'))).toHaveLength(search.probes.length);
  }, 120_000);

  it('says an unreadable slo-search.json is unreadable, and still reports the probes as levels', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'bg-slo-bad-')), 'broken');
    cpSync(runDir, dir, { recursive: true });
    writeFileSync(join(dir, SLO_SEARCH_FILE), '{"over": "rate", "probes": 7');
    const r = await runCli(['report', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the search outcome is unreadable');
    expect(r.stdout).toContain('slo-search.json is not valid JSON');
    expect(r.stdout).toContain('Output tok/s');
  }, 60_000);
});

describe('benchgate compare of two slo_search runs', () => {
  it("compares by the answers' intervals: one search's interval against itself is no meaningful difference, whatever the brackets", async () => {
    expect(search.interval?.low).not.toBeNull();
    const first = copyWithBracket('first', 9, 10, true);
    const second = copyWithBracket('second', 14, 15, true);
    const r = await runCli(['compare', first, second]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /second holds 14 req\/s under the SLOs, first 9: no meaningful difference \(95% intervals .+ and .+ overlap\)\./,
    );
  }, 60_000);

  it('names the found loads and the change when the brackets do not overlap', async () => {
    const base = copyWithBracket('baseline', 9, 10);
    const eagle = copyWithBracket('eagle3', 14, 15);
    const r = await runCli(['compare', base, eagle]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'eagle3 holds 14 req/s under the SLOs, baseline 9 (+56%; brackets 14–15 and 9–10 do not overlap).',
    );
  }, 60_000);

  it('says no difference beyond the search precision when the brackets overlap', async () => {
    const base = copyWithBracket('baseline', 13, 14.5);
    const eagle = copyWithBracket('eagle3', 14, 15);
    const r = await runCli(['compare', base, eagle, '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'eagle3 holds 14 req/s under the SLOs, baseline 13: no difference beyond the search precision (brackets 14–15 and 13–14.5 overlap).',
    );
  }, 60_000);
});
