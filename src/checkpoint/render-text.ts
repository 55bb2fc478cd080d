// Terminal checklist for findings: ✔ pass, ✖ fail, ! warn, - skip, with colour only when the stream is
// a TTY and NO_COLOR is unset; evidence and hints indented under each failed or warned line.

import pc from 'picocolors';
import type { VerifiedTarget } from '../engines/types.js';
import { type CheckpointReport, type Finding, gateFailed } from './finding.js';
import { runningBlock } from './render-running.js';

const MARK = { pass: '✔', fail: '✖', warn: '!', skip: '-' } as const;

export function renderChecklist(
  report: CheckpointReport,
  opts: { color?: boolean; verbose?: boolean; target?: VerifiedTarget | null } = {},
): string {
  const c = pc.createColors(opts.color ?? false);
  const paint = { pass: c.green, fail: c.red, warn: c.yellow, skip: c.dim } as const;
  const lines: string[] = [];
  for (const f of report.findings) {
    const tag = f.required || f.status === 'pass' || f.status === 'skip' ? '' : c.dim(' (advisory)');
    const detail = detailOf(f);
    lines.push(`${paint[f.status](MARK[f.status])} ${f.title}${tag}${detail ? c.dim(` — ${detail}`) : ''}`);
    if (f.status === 'fail' || f.status === 'warn' || opts.verbose) {
      if (f.expected !== undefined && f.status !== 'pass') lines.push(`    expected: ${f.expected}`);
      for (const e of f.evidence.slice(0, 3))
        lines.push(c.dim(`    ${e.where}: ${e.excerpt.replace(/\s*\n\s*/g, ' ⏎ ')}`));
      if (f.hint) lines.push(`    ${c.cyan('hint:')} ${f.hint}`);
    }
  }
  const running = runningBlock(opts.target);
  if (running.length) lines.push('', ...running);
  const failed = gateFailed(report.findings).length;
  const warned = report.findings.filter((f) => f.status === 'warn').length;
  lines.push('');
  lines.push(
    report.ok
      ? c.green(`checkpoint passed${warned ? ` (${warned} warning${warned > 1 ? 's' : ''})` : ''}`)
      : c.red(`checkpoint failed: ${failed} required check${failed > 1 ? 's' : ''} failed`),
  );
  return `${lines.join('\n')}\n`;
}

function detailOf(f: Finding): string {
  return (f.found ?? '').replace(/\s*\n\s*/g, ' ');
}
