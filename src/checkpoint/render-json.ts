// JSON output of a checkpoint: the report and the verified target, stable for scripts to read.

import type { VerifiedTarget } from '../engines/types.js';
import type { CheckpointReport } from './finding.js';

export function renderJson(report: CheckpointReport, verifiedTarget: VerifiedTarget | null): string {
  return `${JSON.stringify({ schema: 'benchgate.checkpoint/1', ...report, verifiedTarget }, null, 2)}\n`;
}
