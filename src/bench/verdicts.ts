// `npm run bench:verdicts`: how often `compare` draws a verdict it should not, and how often it finds one
// it should, on the embedded simulator. Rounds of one-trial benches A, B (B with `--fault slow=X` for a
// modelled slowdown of X) are judged one round at a time (one trial, with and without a run-to-run
// noise estimate measured on other idle A/A runs, as the results store would give it) and three
// consecutive rounds at a time (three paired trials). Prints, per scenario: the share of pairs with a
// confident verdict (A/A: false verdicts; slowdowns: power), and the share of TPOT intervals covering
// the modelled ratio. Asserts nothing (docs/verdicts.md has the targets and the figures measured).
// Flags: --pairs N (three-trial pairs per scenario; rounds = 3N) --requests N --time-scale X
// --iterations N --no-hog --only aa|slow.

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns } from '../report/compare.js';
import { METRICS } from '../report/metric-catalog.js';
import { judgeDifference, type RunNoise } from '../report/run-noise.js';
import type { Comparison, MetricId } from '../report/types.js';
import { hostNoiseAt, isLatencyMetric } from '../report/verdict-caveats.js';
import type { LoadedRun } from '../results/layout.js';
import { asTrials, interleavedRounds, named, type RoundShape, startCpuHog } from './verdict-runs.js';

const JUDGED: MetricId[] = ['output_throughput', 'ttft_p50', 'tpot_p50'];

interface Flags {
  pairs: number;
  requests: number;
  timeScale: number;
  iterations: number;
  hog: boolean;
  only: 'aa' | 'slow' | null;
}

function parseFlags(argv: string[]): Flags {
  const f: Flags = { pairs: 20, requests: 64, timeScale: 10, iterations: 1000, hog: true, only: null };
  for (let i = 0; i < argv.length; i++) {
    const [k, v] = [argv[i], argv[i + 1]];
    const num = () => {
      const n = Number(v);
      if (!(n > 0)) throw new Error(`${k} expects a positive number; found "${v}".`);
      i++;
      return n;
    };
    if (k === '--pairs') f.pairs = Math.round(num());
    else if (k === '--requests') f.requests = Math.round(num());
    else if (k === '--time-scale') f.timeScale = num();
    else if (k === '--iterations') f.iterations = Math.round(num());
    else if (k === '--no-hog') f.hog = false;
    else if (k === '--only' && (v === 'aa' || v === 'slow')) {
      f.only = v;
      i++;
    } else throw new Error(`unknown flag ${k} (see the header of src/bench/verdicts.ts)`);
  }
  return f;
}

/** The spread of ln(value) over one-trial runs of one config, per metric, as the store would give it. */
function noiseOf(runs: readonly LoadedRun[]): RunNoise {
  const logSd: Partial<Record<MetricId, number>> = {};
  for (const m of JUDGED) {
    const logs = runs
      .map((r) => METRICS[m].value(r.summary.levels[0]) ?? Number.NaN)
      .filter((v) => v > 0)
      .map(Math.log);
    if (logs.length < 3) continue;
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    logSd[m] = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1));
  }
  return { host: { source: `${runs.length} idle A/A runs`, runs: runs.length, logSd } };
}

interface PairOutcome {
  /** The level could be judged at all (not client-limited, invalid or too short). */
  usable: boolean;
  /** A run was suspect for host timing noise, so latency was not judged. */
  hostNoise: boolean;
  confident: boolean;
  worse: Partial<Record<MetricId, boolean>>;
  tpotCovers: boolean | null;
  /** b / a per judged metric (the point estimate). */
  ratios: Partial<Record<MetricId, number>>;
}

/** What one comparison concluded: any confident verdict, which metrics read worse, whether TPOT's CI covers `modelled`. */
function judge(cmp: Comparison, modelled: number): PairOutcome {
  const out: PairOutcome = {
    usable: false,
    hostNoise: false,
    confident: false,
    worse: {},
    tpotCovers: null,
    ratios: {},
  };
  for (const row of cmp.levels.filter((r) => r.usable))
    for (const m of JUDGED) {
      const cell = row.cells[m]?.find((c) => c.run === 'b');
      if (!cell) continue;
      if (cell.ratio !== null) out.ratios[m] = cell.ratio;
      if (m === 'tpot_p50' && cell.ci) out.tpotCovers = cell.ci.low <= modelled && modelled <= cell.ci.high;
      if (isLatencyMetric(m) && hostNoiseAt(row, ['a', 'b'])) {
        out.hostNoise = true;
        continue;
      }
      const status = judgeDifference(cell, METRICS[m].higherIsBetter, cmp.minEffect);
      if (status === 'better' || status === 'worse') out.confident = true;
      if (status === 'worse') out.worse[m] = true;
    }
  out.usable = cmp.levels.some((r) => r.usable);
  return out;
}

const share = (xs: boolean[]) => (xs.length ? `${xs.filter(Boolean).length}/${xs.length}` : 'n/a');

/** The median of b / a over the pairs for one metric, as "1.08". */
function median(outcomes: PairOutcome[], m: MetricId): string {
  const xs = outcomes
    .map((o) => o.ratios[m])
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  return xs.length ? xs[Math.floor(xs.length / 2)].toFixed(2) : 'n/a';
}

function line(label: string, outcomes: PairOutcome[]): string {
  const covers = outcomes.map((o) => o.tpotCovers).filter((c): c is boolean => c !== null);
  return (
    `  ${label.padEnd(34)} confident verdicts ${share(outcomes.map((o) => o.confident)).padEnd(6)} ` +
    `worse throughput ${share(outcomes.map((o) => o.worse.output_throughput === true)).padEnd(6)} ` +
    `worse TPOT ${share(outcomes.map((o) => o.worse.tpot_p50 === true)).padEnd(6)} ` +
    `TPOT CI covers model ${share(covers).padEnd(6)} ` +
    `(judged ${share(outcomes.map((o) => o.usable))}, host-noise ${share(outcomes.map((o) => o.hostNoise))}; ` +
    `median ratio throughput ${median(outcomes, 'output_throughput')}, TPOT ${median(outcomes, 'tpot_p50')})`
  );
}

/** Judges a scenario's rounds one at a time (with and without `noise`) and three at a time (paired). */
function judgeScenario(
  a: LoadedRun[],
  b: LoadedRun[],
  modelled: number,
  noise: (skip: number) => RunNoise,
  iterations: number,
) {
  const opts = { metrics: JUDGED, iterations, seed: 1 };
  const single = a.map((ra, t) => [named('a', ra), named('b', b[t])]);
  const bare = single.map((p) => judge(compareRuns(p, opts), modelled));
  const est = single.map((p, t) => judge(compareRuns(p, { ...opts, runNoise: noise(t) }), modelled));
  const paired: PairOutcome[] = [];
  for (let t = 0; t + 3 <= a.length; t += 3) {
    const cmp = compareRuns([asTrials('a', a.slice(t, t + 3)), asTrials('b', b.slice(t, t + 3))], opts);
    paired.push(judge(cmp, modelled));
  }
  return { bare, est, paired };
}

async function main(): Promise<void> {
  const f = parseFlags(process.argv.slice(2));
  const outDir = mkdtempSync(join(tmpdir(), 'bg-bench-verdicts-'));
  const shape: RoundShape = { outDir, requests: f.requests, concurrency: 4, timeScale: f.timeScale };
  const rounds = 3 * f.pairs;
  const say = (s: string) => process.stdout.write(`${s}\n`);
  const note = (s: string) => process.stderr.write(`${s}\n`);
  say(
    `bench:verdicts: ${rounds} rounds per scenario (${rounds} one-trial pairs, ${f.pairs} three-trial pairs), c=4, ${f.requests} requests, time scale ${f.timeScale}; load average at start ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  try {
    note('A/A idle…');
    const [ia, ib] = await interleavedRounds(rounds, [], shape, note);
    const idle = [...ia, ...ib];
    // leave the judged pair out of the estimate it is judged with
    const noise = (skip: number) => noiseOf(idle.filter((r) => r !== ia[skip] && r !== ib[skip]));
    const report = (label: string, r: ReturnType<typeof judgeScenario>) => {
      say(line(`${label}, 1 trial, no noise estimate`, r.bare));
      say(line(`${label}, 1 trial, idle A/A estimate`, r.est));
      say(line(`${label}, 3 paired trials`, r.paired));
    };
    if (f.only !== 'slow') report('A/A idle', judgeScenario(ia, ib, 1, noise, f.iterations));
    if (f.hog && f.only !== 'slow') {
      const hog = startCpuHog(3600);
      note(`A/A under a CPU hog of ${hog.processes} busy processes…`);
      try {
        const [la, lb] = await interleavedRounds(rounds, [], shape, note);
        say(
          `  (load average under the hog ${loadavg()
            .map((x) => x.toFixed(1))
            .join(' ')})`,
        );
        report('A/A loaded', judgeScenario(la, lb, 1, noise, f.iterations));
      } finally {
        hog.stop();
      }
    }
    if (f.only !== 'aa')
      for (const x of [1.1, 1.3]) {
        note(`slow=${x}…`);
        const [sa, sb] = await interleavedRounds(rounds, [`slow=${x}`], shape, note);
        report(`slow=${x}`, judgeScenario(sa, sb, x, noise, f.iterations));
      }
    say(
      `load average at end ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`bench:verdicts: ${(e as Error).message}\n`);
  process.exit(1);
});
