// `benchgate compare`, `benchgate report` and `benchgate import`: flag parsing and wiring only.
// The comparison lives in src/report/, reading and writing run directories in src/results/.

import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { wantsColor } from '../../core/color.js';
import { BenchgateError } from '../../core/errors.js';
import { benchgateVersion } from '../../core/version.js';
import { FORMATS, type ReportFormat, renderFormat, reportArtifacts } from '../../report/artifacts.js';
import { compareRuns } from '../../report/compare.js';
import { isMetricId, METRICS } from '../../report/metric-catalog.js';
import { givenRunNoise, type RunNoise } from '../../report/run-noise.js';
import type { MetricId } from '../../report/types.js';
import { type ImportFrom, importResultText } from '../../results/import-result.js';
import { writeImportedRun } from '../../results/import-run.js';
import { readRuns, reportRunDirs } from '../../results/read-run.js';
import { chartFontDirs, writeArtifacts } from '../../results/write-artifacts.js';
import { recordRuns } from '../../store/record-run.js';
import { runNoiseForCompare } from '../../store/run-noise.js';
import { type StoreLocation, storeLocation } from '../../store/store.js';
import { action, parsePositive } from '../action.js';
import { locationOf, noteToStderr, type StoreFlags, withStoreOptions } from './store-options.js';

interface OutputFlags {
  format: string;
  /** Same as --format json, as every other command spells it. */
  json?: boolean;
  out?: string;
  seed: string;
  iterations: string;
}

function parseFormat(v: string): ReportFormat {
  if ((FORMATS as readonly string[]).includes(v)) return v as ReportFormat;
  throw new BenchgateError('BG_E_USAGE', `--format expects one of ${FORMATS.join(', ')}; found "${v}".`);
}

export function parseMetrics(values: string[] | undefined): MetricId[] | undefined {
  if (!values || values.length === 0) return undefined;
  const ids = values
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of ids) {
    if (!isMetricId(id))
      throw new BenchgateError(
        'BG_E_USAGE',
        `--metric expects names from ${Object.keys(METRICS).join(', ')}; found "${id}".`,
      );
  }
  return ids as MetricId[];
}

interface CompareFlags extends StoreFlags {
  baseline?: string;
  varies?: string[];
  metric?: string[];
  minEffect?: string;
  allowDifferentWorkloads?: boolean;
  runNoise?: string;
}

/** --run-noise as a percentage: a run-to-run spread (standard deviation) the user measured elsewhere. */
export function parseRunNoise(v: string | undefined): RunNoise | undefined {
  if (v === undefined) return undefined;
  const sd = parsePercent('--run-noise', v, 'the run-to-run standard deviation in percent', 3);
  return givenRunNoise(sd, `--run-noise ${sd * 100}%, given on the command line`);
}

/** A percentage flag ("2", "2%", "0.5") as a fraction, from 0 to 1 (exclusive). */
function parsePercent(flag: string, v: string, what: string, example: number): number {
  const n = Number(v.trim().replace(/%$/, ''));
  if (!Number.isFinite(n) || n < 0 || n >= 100)
    throw new BenchgateError(
      'BG_E_USAGE',
      `${flag} expects ${what} from 0 to 100 (e.g. ${example} or ${example}%); found "${v}".`,
    );
  return n / 100;
}

/** Where compare looks for earlier runs: --store/--results, else the store beside the first run (or its matrix). */
function noiseStore(flags: StoreFlags, firstDir: string | undefined): StoreLocation | null {
  if (flags.store || flags.results) return locationOf(flags);
  if (!firstDir) return null;
  const parent = dirname(resolve(firstDir));
  const near = [parent, dirname(parent)].map((results) => storeLocation({ results }));
  return near.find((l) => existsSync(l.path)) ?? near[0];
}

/** --min-effect as a percentage ("2", "2%", "0.5"): the smallest change a verdict calls a difference. */
export function parseMinEffect(v: string | undefined): number | undefined {
  return v === undefined ? undefined : parsePercent('--min-effect', v, 'a percentage', 2);
}

/** The output settings, checked before any run is read (a usage error is exit 2 whatever the runs). */
function outputSettings(flags: OutputFlags) {
  if (flags.json && flags.format !== 'text' && flags.format !== 'json')
    throw new BenchgateError(
      'BG_E_USAGE',
      `--json is --format json; it cannot be used with --format ${flags.format}.`,
    );
  return {
    format: parseFormat(flags.json ? 'json' : flags.format),
    seed: parsePositive('--seed', flags.seed, { integer: true, allowZero: true }),
    iterations: parsePositive('--iterations', flags.iterations, { integer: true }),
  };
}

async function emit(runDirs: string[], flags: OutputFlags & CompareFlags): Promise<number> {
  const { format, seed, iterations } = outputSettings(flags);
  const runs = await readRuns(runDirs);
  const given = parseRunNoise(flags.runNoise);
  const loc = given ? null : noiseStore(flags, runs[0]?.dir);
  const runNoise = given ?? (loc ? await runNoiseForCompare(runs, loc, noteToStderr) : undefined);
  const cmp = compareRuns(runs, {
    runNoise,
    baseline: flags.baseline,
    metrics: parseMetrics(flags.metric),
    seed,
    iterations,
    minEffect: parseMinEffect(flags.minEffect),
    allowDifferentWorkloads: flags.allowDifferentWorkloads === true,
    varies: (flags.varies ?? []).flatMap((v) => v.split(',').map((k) => k.trim())).filter(Boolean),
  });
  const html = { version: benchgateVersion(), generatedAt: new Date().toISOString() };
  // an HTML page written to --out is not also poured onto the terminal: stdout names the file instead
  if (format === 'html' && flags.out) process.stdout.write(`${join(flags.out, 'report.html')}\n`);
  else
    process.stdout.write(
      renderFormat(cmp, format, {
        color: format === 'text' && wantsColor(process.stdout, process.env),
        html,
      }),
    );
  // CSV rows are data only; the one-screen summary beside them goes to stderr
  if (format === 'csv') for (const t of cmp.summary) process.stderr.write(`benchgate: ${t}\n`);
  if (flags.out) {
    const written = await writeArtifacts(
      flags.out,
      reportArtifacts(cmp, format, { html, fontDirs: chartFontDirs() }),
    );
    process.stderr.write(
      `benchgate: wrote ${written.length} files to ${flags.out} (report.html, compare.json, charts/*.svg and *.png)\n`,
    );
  }
  return 0;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** The output options compare and report share: format, output directory, bootstrap seed and resamples. */
function withOutputOptions(cmd: Command, iterationsHelp: string): Command {
  return cmd
    .option('--format <format>', `output format: ${FORMATS.join(', ')}`, 'text')
    .option('--json', 'print the comparison as JSON (same as --format json)')
    .option(
      '--out <dir>',
      'also write report.html, compare.json and charts (SVG and PNG) into this directory',
    )
    .option('--seed <n>', 'bootstrap seed', '1')
    .option('--iterations <n>', iterationsHelp, '2000');
}

/** What compare alone takes: the baseline, metrics, minimum effect, declared differences and run-to-run noise. */
function withCompareOptions(cmd: Command): Command {
  return cmd
    .option('--baseline <name>', 'run name to compare against (a plan name or directory name)')
    .option(
      '--metric <names>',
      `metrics to show, comma-separated or repeated (${Object.keys(METRICS).join(', ')})`,
      collect,
    )
    .option('--min-effect <percent>', 'smallest change a verdict calls a difference, in percent', '2')
    .option(
      '--allow-different-workloads',
      'draw verdicts even when the runs measured different workloads (the difference is the point)',
    )
    .option(
      '--varies <keys>',
      "configuration keys the runs differ in on purpose, comma-separated or repeated (speculative.*, tp_size), as a plan's varies",
      collect,
    )
    .option(
      '--run-noise <percent>',
      'run-to-run spread (standard deviation, percent) measured elsewhere, for runs of one trial; default: from earlier runs of the same config, workload and host in the results store',
    );
}

export function registerCompare(program: Command): void {
  const compare = program
    .command('compare')
    .description(
      'Compare runs level by level: ratios to a baseline with bootstrap CIs, crossovers, verdicts, config differences.',
    )
    .argument('<run-dirs...>', 'run directories (the first is the baseline unless --baseline names another)');
  withCompareOptions(compare);
  withStoreOptions(compare);
  withOutputOptions(compare, 'bootstrap resamples per level, metric and run').action(
    action(async (dirs: string[], flags: OutputFlags & CompareFlags) => emit(dirs, flags)),
  );

  const report = program
    .command('report')
    .description('Report one run: tables per level, charts, checkpoint findings.')
    .argument('<run-dir>', 'run directory')
    .option(
      '--metric <names>',
      `metrics to show, comma-separated or repeated (${Object.keys(METRICS).join(', ')})`,
      collect,
    );
  withOutputOptions(report, 'bootstrap resamples').action(
    action(async (dir: string, flags: OutputFlags & { metric?: string[] }) => {
      outputSettings(flags);
      return emit(await reportRunDirs(dir), flags);
    }),
  );

  program
    .command('import')
    .description(
      'Turn SGLang bench_serving or vLLM bench serve results (the result file, or the result table they print) into a benchgate run directory.',
    )
    .argument(
      '<file>',
      'result file written by the other tool, or a saved terminal log with its result table(s)',
    )
    .option('--from <tool>', 'sglang | vllm | auto (decide from the file)', 'auto')
    .option('--out <dir>', 'results directory; the run goes into <out>/import-<name>/', 'results')
    .option('--name <name>', 'run name (default: the file name, or vLLM --label)')
    .action(
      action(async (file: string, flags: { from: string; out: string; name?: string }) => {
        const from = parseImportFrom(flags.from);
        const name = flags.name === undefined ? undefined : parseRunName(flags.name);
        const st = await stat(file).catch(() => null);
        if (!st?.isFile())
          throw new BenchgateError(
            'BG_E_IMPORT',
            `Expected a result file at ${file}; ${st ? 'it is a directory' : 'nothing is there'}.`,
            { exitCode: 2 },
          );
        const text = await readFile(file, 'utf8');
        const run = importResultText(text, file, { from, name, startedAt: st.mtime.toISOString() });
        const dir = await writeImportedRun(flags.out, run);
        await recordRuns([dir], { results: flags.out, note: noteToStderr });
        for (const w of run.warnings) process.stderr.write(`benchgate: note: ${w}\n`);
        process.stdout.write(`${dir}\n`);
        return 0;
      }),
    );
}

function parseImportFrom(v: string): ImportFrom {
  if (v === 'sglang' || v === 'vllm' || v === 'auto') return v;
  throw new BenchgateError('BG_E_USAGE', `--from expects sglang, vllm or auto; found "${v}".`);
}

/** A run name becomes a directory name: short, and of letters, digits, '.', '_' and '-' only. */
function parseRunName(v: string): string {
  if (/^[\w.-]{1,100}$/.test(v) && v !== '.' && v !== '..') return v;
  throw new BenchgateError(
    'BG_E_USAGE',
    `--name expects 1 to 100 letters, digits, '.', '_' or '-' (it names the run directory); found ${v.length > 40 ? `${v.length} characters` : `"${v}"`}.`,
  );
}
