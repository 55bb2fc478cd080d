// `benchgate gate RUN --against last|RUN_ID`: flag parsing and wiring only; the gate is src/store/gate.ts.
// Exit 0 pass, 1 regression beyond the minimum effect and the noise, 2 nothing comparable (or a usage
// error), 4 inconclusive (a change it cannot tell from run-to-run noise, or no level it could judge).

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { BenchgateError } from '../../core/errors.js';
import { findRunDirs } from '../../store/discover.js';
import { DEFAULT_HISTORY_WINDOW, DEFAULT_MIN_HISTORY, runGate } from '../../store/gate.js';
import { gateJson, gateJunit, gateText } from '../../store/gate-render.js';
import { addRuns } from '../../store/index-runs.js';
import { openStore } from '../../store/store.js';
import { action, parsePositive } from '../action.js';
import { parseMetrics, parseMinEffect } from './compare.js';
import { noteToStderr, readLocation, type StoreFlags, withStoreOptions } from './store-options.js';

interface GateFlags extends StoreFlags {
  against: string;
  format: string;
  metric?: string[];
  minEffect?: string;
  minHistory: string;
  window: string;
  iterations: string;
  seed: string;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

async function gateCommand(runRef: string, flags: GateFlags): Promise<number> {
  const format = flags.format;
  if (!['text', 'json', 'junit'].includes(format))
    throw new BenchgateError('BG_E_USAGE', `--format expects text, json or junit; found "${format}".`);
  const { db } = await openStore(readLocation(flags), noteToStderr);
  try {
    // a run directory given by path is indexed first, so CI can gate what it just wrote
    for (const ref of [runRef, flags.against])
      if (ref !== 'last' && existsSync(resolve(ref))) await addRuns(db, await findRunDirs(resolve(ref)));
    const result = await runGate(db, {
      run: existsSync(resolve(runRef)) ? resolve(runRef) : runRef,
      against:
        flags.against !== 'last' && existsSync(resolve(flags.against))
          ? resolve(flags.against)
          : flags.against,
      metrics: parseMetrics(flags.metric),
      minEffect: parseMinEffect(flags.minEffect),
      minHistory: parsePositive('--min-history', flags.minHistory, { integer: true }),
      window: parsePositive('--window', flags.window, { integer: true }),
      iterations: parsePositive('--iterations', flags.iterations, { integer: true }),
      seed: parsePositive('--seed', flags.seed, { integer: true, allowZero: true }),
      cwd: process.cwd(),
    });
    process.stdout.write(
      format === 'json' ? gateJson(result) : format === 'junit' ? gateJunit(result) : gateText(result),
    );
    return result.exitCode;
  } finally {
    db.close();
  }
}

export function registerGate(program: Command): void {
  withStoreOptions(
    program
      .command('gate')
      .description(
        'Regression gate for CI: compare RUN with the last valid run of the same configuration and workload (or --against RUN_ID), a change judged against the run-to-run noise of the earlier runs of that configuration, workload and host (or of repeated trials); exit 0 pass, 1 regression, 2 nothing comparable, 4 inconclusive.',
      )
      .argument('<run>', 'run id, run directory or run name (the latest of that name)')
      .option(
        '--against <run>',
        'last (the last earlier run of the same config fingerprint and workload) or a run',
        'last',
      )
      .option(
        '--metric <names>',
        'metrics judged, comma-separated or repeated (default output_throughput, ttft_p50, tpot_p50, e2e_p50)',
        collect,
      )
      .option('--min-effect <percent>', 'smallest change called a regression, in percent', '2')
      .option(
        '--min-history <n>',
        'earlier runs of the same configuration, workload and host needed before their spread is the noise a change must exceed',
        String(DEFAULT_MIN_HISTORY),
      )
      .option(
        '--window <n>',
        'at most this many of the latest earlier runs form the history',
        String(DEFAULT_HISTORY_WINDOW),
      )
      .option('--format <format>', 'text | json | junit', 'text')
      .option('--iterations <n>', 'bootstrap resamples per level and metric', '2000')
      .option('--seed <n>', 'bootstrap seed', '1'),
  ).action(action(gateCommand));
}
