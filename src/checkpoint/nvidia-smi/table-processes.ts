// The Processes section of nvidia-smi's default table, alone or under the GPUs: the old layout
// (`GPU  PID  Type  Process name  Usage`), the GI/CI layout of 450+ (MIG instance ids or N/A), the wider
// PID column of 580+, Windows rows whose memory is N/A, names nvidia-smi shortened with `...`. A row a
// terminal cut keeps its PID with the memory unknown; a section the text ends inside is truncated.

import { type ReadResult, readUnknown, readValue } from '../../core/read-result.js';
import {
  closedCells,
  findLine,
  isBorder,
  isComplete,
  isSeparator,
  opensSection,
  PROCESS_COLUMNS_RE,
  tableLines,
} from './table-lines.js';
import { isInt, isPlaceholder } from './text.js';
import type { ComputeApp, ProcessListing } from './types.js';

const PROCESS_TYPE = /^(C|G|M|C\+G|G\+C|M\+C|M\+G)$/;

/** `0   N/A  N/A      48811      C   /usr/bin/python3      74302MiB` (with or without GI/CI). */
function appFromRow(line: string): ComputeApp | null {
  const complete = isComplete(line);
  const inner = complete ? (closedCells(line)[0] ?? '') : line.replace(/^\|/, '');
  const w = inner.trim().split(/\s+/);
  const t = w.findIndex((x, i) => i >= 2 && PROCESS_TYPE.test(x) && isInt(w[i - 1]));
  if (t < 0 || !isInt(w[0])) return null;
  const last = w[w.length - 1];
  const memory = complete ? /^(\d+)MiB$/.exec(last) : null;
  const hasMemoryCell = complete && (memory !== null || isPlaceholder(last));
  const nameWords = w.slice(t + 1, hasMemoryCell ? w.length - 1 : w.length);
  return {
    pid: Number(w[t - 1]),
    gpuUuid: null,
    gpuIndex: Number(w[0]),
    gpuBusId: null,
    usedMemoryMiB: memory ? Number(memory[1]) : null,
    // a cut row may have lost the end of the name: say so rather than print a shorter name as the name
    processName: `${nameWords.join(' ')}${complete ? '' : '…'}`,
    type: w[t],
  };
}

/** The processes of the table's Processes section; unknown when the text has no such section. */
export function readProcessTable(rawLines: string[]): ReadResult<ProcessListing> {
  const lines = tableLines(rawLines);
  const titled = findLine(lines, 0, (l) => opensSection(l, 'Processes'));
  // a paste of the section without its title line starts at the column header
  const start = titled >= 0 ? titled : findLine(lines, 0, (l) => PROCESS_COLUMNS_RE.test(l));
  if (start < 0) return readUnknown('the nvidia-smi table has no Processes section (cut short?)');
  const sep = findLine(lines, start, isSeparator);
  if (sep < 0) return readUnknown('the nvidia-smi table is cut inside the header of its Processes section');
  const apps: ComputeApp[] = [];
  for (let i = sep + 1; i < lines.length; i++) {
    const line = lines[i];
    if (isBorder(line) || line === '') return readValue({ apps, truncated: null });
    if (/No running processes found/i.test(line)) continue;
    const app = appFromRow(line);
    if (app) apps.push(app);
  }
  const after = apps.length > 0 ? `the row of PID ${apps[apps.length - 1].pid}` : 'its header';
  return readValue({ apps, truncated: `the Processes section is cut after ${after}` });
}
