// The gate's result for people (text) and for CI systems (JSON; JUnit XML: one test case per metric and
// level with its measured window as `time`, a `<failure>` per regression, a `<skipped>` with the reason
// for each check it could not judge, an `<error>` when nothing was comparable). Pure.

import { escapeHtml as xml } from '../report/escape.js';
import type { GateResult } from './gate.js';
import type { GateCheck } from './gate-checks.js';

const WORD = {
  pass: 'PASS',
  regression: 'REGRESSION',
  inconclusive: 'INCONCLUSIVE',
  incomparable: 'NOTHING COMPARABLE',
} as const;

const MARK: Record<GateCheck['outcome'], string> = {
  regression: '✖',
  improvement: '▲',
  'no change': '·',
  inconclusive: '?',
  skipped: '-',
};

export function gateText(r: GateResult): string {
  const lines = [`gate: ${WORD[r.status]} — ${r.reason}`, `run:       ${r.run.id} (${r.run.dir})`];
  if (r.reference) {
    lines.push(`reference: ${r.reference.id} (${r.reference.dir})`);
    lines.push(
      `history:   ${r.history.runs} earlier run(s) of this configuration, workload and host (${r.history.needed} needed for their spread to be the noise)`,
    );
  }
  if (r.validity && r.validity.status !== 'valid')
    lines.push(
      `comparison ${r.validity.status}: ${r.validity.reasons
        .filter((x) => x.severity !== 'note')
        .map((x) => x.text)
        .join(' ')}`,
    );
  for (const c of r.checks) lines.push(`  ${MARK[c.outcome]} ${c.text}`);
  if (r.verdicts.length) lines.push('verdicts:', ...r.verdicts.map((v) => `  ${v}`));
  return `${lines.join('\n')}\n`;
}

export function gateJson(r: GateResult): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

function testcase(r: GateResult, c: GateCheck): string {
  const name = `${c.metric} at ${c.level}`;
  let body = `<system-out>${xml(c.text)}</system-out>`;
  if (c.outcome === 'regression')
    body = `<failure message="${xml(c.text)}" type="regression">${xml(c.text)}</failure>`;
  else if (c.outcome === 'skipped' || c.outcome === 'inconclusive')
    body = `<skipped message="${xml(`${c.outcome}: ${c.reason ?? ''}`)}"/><system-out>${xml(c.text)}</system-out>`;
  const time = c.timeS.toFixed(3);
  return `    <testcase classname="benchgate.gate.${xml(r.run.id)}" name="${xml(name)}" time="${time}">${body}</testcase>`;
}

export function gateJunit(r: GateResult): string {
  const suite = `benchgate gate ${r.run.id}`;
  const cases: string[] = [];
  if (r.status === 'incomparable')
    cases.push(
      `    <testcase classname="benchgate.gate" name="comparable reference" time="0"><error message="${xml(r.reason)}" type="nothing-comparable">${xml(r.reason)}</error></testcase>`,
    );
  for (const c of r.checks) cases.push(testcase(r, c));
  const failures = r.checks.filter((c) => c.outcome === 'regression').length;
  const skipped = r.checks.filter((c) => c.outcome === 'skipped' || c.outcome === 'inconclusive').length;
  const errors = r.status === 'incomparable' ? 1 : 0;
  const time = r.checks.reduce((a, c) => a + c.timeS, 0).toFixed(3);
  const counts = `tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="benchgate" ${counts}>`,
    `  <testsuite name="${xml(suite)}" ${counts}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
