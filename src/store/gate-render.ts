// The gate's result for people (text) and for CI systems (JSON, JUnit XML: one test case per metric and
// level, a failure per regression, an error when nothing was comparable). Pure.

import { escapeHtml as xml } from '../report/escape.js';
import type { GateResult } from './gate.js';

const WORD = { pass: 'PASS', regression: 'REGRESSION', incomparable: 'NOTHING COMPARABLE' } as const;

export function gateText(r: GateResult): string {
  const lines = [`gate: ${WORD[r.status]} — ${r.reason}`, `run:       ${r.run.id} (${r.run.dir})`];
  if (r.reference) lines.push(`reference: ${r.reference.id} (${r.reference.dir})`);
  if (r.validity && r.validity.status !== 'valid')
    lines.push(
      `comparison ${r.validity.status}: ${r.validity.reasons
        .filter((x) => x.severity !== 'note')
        .map((x) => x.text)
        .join(' ')}`,
    );
  for (const c of r.checks)
    lines.push(`  ${c.outcome === 'regression' ? '✖' : c.outcome === 'improvement' ? '▲' : '·'} ${c.text}`);
  if (r.verdicts.length) lines.push('verdicts:', ...r.verdicts.map((v) => `  ${v}`));
  return `${lines.join('\n')}\n`;
}

export function gateJson(r: GateResult): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

export function gateJunit(r: GateResult): string {
  const suite = `benchgate gate ${r.run.id}`;
  const cases: string[] = [];
  if (r.status === 'incomparable')
    cases.push(
      `    <testcase classname="benchgate.gate" name="comparable reference"><error message="${xml(r.reason)}" type="nothing-comparable">${xml(r.reason)}</error></testcase>`,
    );
  for (const c of r.checks) {
    const name = `${c.metric} at ${c.level}`;
    const body =
      c.outcome === 'regression'
        ? `<failure message="${xml(c.text)}" type="regression">${xml(c.text)}</failure>`
        : `<system-out>${xml(c.text)}</system-out>`;
    cases.push(
      `    <testcase classname="benchgate.gate.${xml(r.run.id)}" name="${xml(name)}">${body}</testcase>`,
    );
  }
  const failures = r.checks.filter((c) => c.outcome === 'regression').length;
  const errors = r.status === 'incomparable' ? 1 : 0;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="benchgate" tests="${cases.length}" failures="${failures}" errors="${errors}">`,
    `  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${failures}" errors="${errors}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
