// Markdown report of findings: one table row per finding, then the evidence of each failed or warned one.

import type { CheckpointReport } from './finding.js';

const ICON = { pass: '✅ pass', fail: '❌ fail', warn: '⚠️ warn', skip: '⏭️ skip' } as const;

const cell = (s: string | undefined) => (s ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export function renderMarkdown(report: CheckpointReport): string {
  const out: string[] = [];
  out.push(`## Checkpoint: ${report.ok ? 'passed' : 'FAILED'}`, '', `Checked at ${report.checkedAt}.`, '');
  out.push('| status | check | required | expected | found |', '|---|---|---|---|---|');
  for (const f of report.findings) {
    out.push(
      `| ${ICON[f.status]} | ${cell(f.title)} (\`${f.id}\`) | ${f.required ? 'yes' : 'no'} | ${cell(f.expected)} | ${cell(f.found)} |`,
    );
  }
  const detailed = report.findings.filter(
    (f) => (f.status === 'fail' || f.status === 'warn') && (f.evidence.length > 0 || f.hint),
  );
  if (detailed.length > 0) out.push('', '### Evidence');
  for (const f of detailed) {
    out.push('', `**${cell(f.title)}** (\`${f.id}\`)`, '');
    for (const e of f.evidence)
      out.push(
        `- ${e.source} \`${e.where}\`:`,
        '',
        '  ```',
        ...e.excerpt.split('\n').map((l) => `  ${l.replace(/```/g, "'''")}`),
        '  ```',
      );
    if (f.hint) out.push(`- hint: ${f.hint}`);
  }
  return `${out.join('\n')}\n`;
}
