// Metrics that are one ratio by construction give one verdict, not four: under fixed prompt and output
// lengths output, request, input and total throughput move together; TTFT and TTFT to visible content
// coincide when the first token is visible; E2E with and without client queue coincide in a closed loop.
// A family speaks as one only where its members' changes really coincide at every usable level (checked,
// not assumed): variable lengths or a reasoning model split it back into separate verdicts.

import { METRICS } from './metric-catalog.js';
import type { Cell, LevelRow, MetricId } from './types.js';

export interface MetricFamily {
  members: MetricId[];
  /** Why the members coincide, said in the verdict. */
  because: string;
}

export const FAMILIES: readonly MetricFamily[] = [
  {
    members: ['output_throughput', 'request_throughput', 'input_throughput', 'total_throughput'],
    because: 'fixed prompt and output lengths',
  },
  { members: ['ttft_p50', 'ttft_content_p50'], because: 'the first token is visible content' },
  { members: ['ttft_p99', 'ttft_content_p99'], because: 'the first token is visible content' },
  { members: ['e2e_p50', 'e2e_queue_p50'], because: 'no client queue time' },
  { members: ['e2e_p99', 'e2e_queue_p99'], because: 'no client queue time' },
];

/**
 * Ratios closer than this (absolute, on the ratio: half a percent, a quarter of the default minimum
 * effect) count as the same change; a closed loop's client queue of a few ms stays well inside it.
 */
const SAME_RATIO = 0.005;

function sameChange(a: Cell | undefined, b: Cell | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.ratio === null || b.ratio === null)
    return a.ratio === b.ratio && (a.value === null) === (b.value === null);
  return Math.abs(a.ratio - b.ratio) <= SAME_RATIO && a.significant === b.significant;
}

/** Whether `member`'s cells of `run` coincide with `head`'s at every usable level. */
function coincides(rows: readonly LevelRow[], head: MetricId, member: MetricId, run: string): boolean {
  const usable = rows.filter((r) => r.usable);
  if (usable.length === 0) return false;
  return usable.every((r) =>
    sameChange(
      r.cells[head]?.find((c) => c.run === run),
      r.cells[member]?.find((c) => c.run === run),
    ),
  );
}

/**
 * For one run: each verdict metric's role. `speaksFor` lists the family members (head first) a head's
 * verdict covers; metrics covered by another's verdict map to null (no verdict of their own).
 */
export function familyRoles(
  rows: readonly LevelRow[],
  metrics: readonly MetricId[],
  run: string,
): Map<MetricId, { speaksFor: MetricId[]; because: string } | null> {
  const roles = new Map<MetricId, { speaksFor: MetricId[]; because: string } | null>();
  for (const f of FAMILIES) {
    const present = f.members.filter((m) => metrics.includes(m) && METRICS[m].inVerdicts);
    if (present.length < 2) continue;
    const [head, ...rest] = present;
    const joined = rest.filter((m) => coincides(rows, head, m, run));
    if (joined.length === 0) continue;
    roles.set(head, { speaksFor: [head, ...joined], because: f.because });
    for (const m of joined) roles.set(m, null);
  }
  return roles;
}

/** "Also request, input and total token throughput: the same ratio here (fixed prompt and output lengths)." */
export function familyNote(members: readonly MetricId[], because: string): string {
  const nouns = members.slice(1).map((m) => METRICS[m].noun);
  // "request throughput, input throughput" → "request, input … throughput" when they end alike
  const last = nouns.map((n) => n.split(' ').at(-1));
  const alike = nouns.length > 1 && last.every((w) => w === last[0]);
  const heads = alike
    ? nouns.map((n, i) => (i < nouns.length - 1 ? n.slice(0, n.lastIndexOf(' ')) : n))
    : nouns;
  const list = heads.length === 1 ? heads[0] : `${heads.slice(0, -1).join(', ')} and ${heads.at(-1)}`;
  return `Also ${list}: the same ratio here (${because}).`;
}
