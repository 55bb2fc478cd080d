// The report of one run in the terminal: one table, metrics down and levels across, instead of a
// one-column table per metric (a 2-level run printed 20 of them). Values only where they were measured:
// a withheld percentile reads n/a with one footnote saying why, a metric no level has is left out and said.

import { formatValue, labelWithUnit } from './format.js';
import { METRICS } from './metric-catalog.js';
import type { MetricTable, TableCell } from './table-model.js';
import type { Comparison, MetricId } from './types.js';

const cell = (text: string, tone: TableCell['tone'] = 'neutral'): TableCell => ({ text, tone });

/** Why metrics are missing: goodput without SLOs, energy without GPU power samples. */
const ABSENT_WHY: Partial<Record<MetricId, string>> = {
  goodput: 'goodput: no SLO in the plan',
  energy_per_token: 'energy per token: no GPU power data',
};

export interface SingleRunTable {
  table: MetricTable;
  /** Footnotes under the table: withheld percentiles and the metrics left out, with why. */
  notes: string[];
}

export function singleRunTable(cmp: Comparison): SingleRunTable {
  const run = cmp.runs[0]?.name;
  const rows: TableCell[][] = [];
  const withheld = new Set<string>();
  const absent: string[] = [];
  for (const metric of cmp.metrics) {
    const spec = METRICS[metric];
    const cells = cmp.levels.map((row) => (row.cells[metric] ?? []).find((c) => c.run === run));
    if (cells.every((c) => !c || (c.value === null && !c.withheld))) {
      absent.push(ABSENT_WHY[metric] ?? `${spec.label}: not reported`);
      continue;
    }
    const values = cells.map((c, i) => {
      if (c?.withheld) {
        withheld.add(c.withheld);
        return cell('n/a', 'muted');
      }
      return cell(c ? formatValue(c.value) : '—', cmp.levels[i].usable ? 'neutral' : 'muted');
    });
    rows.push([cell(labelWithUnit(spec.label, spec.unit)), ...values]);
  }
  const notes = [
    ...(withheld.size ? [`n/a: too few samples for that percentile: ${[...withheld].join('; ')}.`] : []),
    ...(absent.length ? [`Not shown: ${absent.join('; ')}.`] : []),
  ];
  return {
    table: {
      metric: cmp.metrics[0],
      title: `${run}: metrics by level`,
      header: ['metric', ...cmp.levels.map((l) => l.label)],
      rows,
    },
    notes,
  };
}
