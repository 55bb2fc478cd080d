// `benchgate history METRIC` and `benchgate export --parquet`: flag parsing and wiring only. The history
// (values and intervals from the store) is src/store/history.ts, its chart src/serve/history-chart.ts.

import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { BenchgateError } from '../../core/errors.js';
import { isMetricId, METRICS } from '../../report/metric-catalog.js';
import { historyChartSvg } from '../../serve/history-chart.js';
import { exportParquet } from '../../store/export.js';
import { metricHistory, parseLevel } from '../../store/history.js';
import { openStoreReadOnly } from '../../store/store.js';
import { textTable } from '../../store/text-table.js';
import { action, parsePositive } from '../action.js';
import {
  type FilterFlags,
  filterOf,
  noteToStderr,
  readLocation,
  type StoreFlags,
  withFilterOptions,
  withStoreOptions,
} from './store-options.js';

interface HistoryFlags extends StoreFlags, FilterFlags {
  level?: string;
  chart?: string;
  format: string;
  iterations: string;
  seed: string;
}

async function historyCommand(metric: string, flags: HistoryFlags): Promise<number> {
  if (!isMetricId(metric))
    throw new BenchgateError(
      'BG_E_USAGE',
      `METRIC expects one of ${Object.keys(METRICS).join(', ')}; found "${metric}".`,
    );
  if (flags.format !== 'text' && flags.format !== 'json')
    throw new BenchgateError('BG_E_USAGE', `--format expects text or json; found "${flags.format}".`);
  const db = await openStoreReadOnly(readLocation(flags), noteToStderr);
  try {
    const points = await metricHistory(db, {
      metric,
      filter: filterOf(flags),
      level: flags.level ? parseLevel(flags.level) : undefined,
      iterations: parsePositive('--iterations', flags.iterations, { integer: true }),
      seed: parsePositive('--seed', flags.seed, { integer: true, allowZero: true }),
    });
    if (flags.chart) {
      writeFileSync(resolve(flags.chart), historyChartSvg(metric, points));
      process.stderr.write(`benchgate: wrote the chart to ${flags.chart}\n`);
    }
    if (flags.format === 'json') {
      process.stdout.write(`${JSON.stringify({ metric, unit: METRICS[metric].unit, points }, null, 2)}\n`);
      return 0;
    }
    if (points.length === 0) {
      process.stderr.write('benchgate: no level of a matching run in the store.\n');
      return 0;
    }
    const spec = METRICS[metric];
    const rows = points.map((p) => [
      ...[p.startedAt?.replace(/\.\d+Z$/, 'Z') ?? null, p.runId, p.label, p.value],
      ...[p.ci?.low ?? null, p.ci?.high ?? null, p.n, p.validity.toUpperCase()],
      [p.changePoint ? `change point: ${changeWords(p.changePoint.shift)} vs before` : null, p.withheld]
        .filter(Boolean)
        .join('; '),
    ]);
    const unit = spec.unit ? ` (${spec.unit})` : '';
    process.stdout.write(
      textTable(
        ['started', 'run', 'level', `${metric}${unit}`, 'CI low', 'CI high', 'n', 'validity', 'note'],
        rows,
      ),
    );
    return 0;
  } finally {
    db.close();
  }
}

const changeWords = (shift: number) => `${shift >= 1 ? '+' : ''}${((shift - 1) * 100).toFixed(1)}%`;

export function registerHistory(program: Command): void {
  withFilterOptions(
    withStoreOptions(
      program
        .command('history')
        .description('One metric of the matching runs over time, per level, with 95% bootstrap intervals.')
        .argument('<metric>', `metric (${Object.keys(METRICS).join(', ')})`)
        .option('--level <level>', 'only this level: c=64 (concurrency) or rate=4 (requests/s)')
        .option('--chart <file.svg>', 'also write the chart as SVG')
        .option('--format <format>', 'text | json', 'text')
        .option('--iterations <n>', 'bootstrap resamples per point', '1000')
        .option('--seed <n>', 'bootstrap seed', '1'),
    ),
  ).action(action(historyCommand));

  withFilterOptions(
    withStoreOptions(
      program
        .command('export')
        .description('Write the request records and level summaries of the matching runs as Parquet files.')
        .requiredOption('--parquet <dir>', 'directory for requests.parquet, levels.parquet and runs.parquet'),
    ),
  ).action(
    action(async (flags: StoreFlags & FilterFlags & { parquet: string }) => {
      const db = await openStoreReadOnly(readLocation(flags), noteToStderr);
      try {
        const written = await exportParquet(db, resolve(flags.parquet), filterOf(flags));
        for (const w of written) process.stdout.write(`${w.path}\t${w.rows} rows\n`);
        return 0;
      } finally {
        db.close();
      }
    }),
  );
}
