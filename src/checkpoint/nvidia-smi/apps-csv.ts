// `nvidia-smi --query-compute-apps=… --format=csv[,noheader][,nounits]` as processes: any field order
// when a header (or the pasted command line) names the columns, else benchgate's own query order
// (pid, gpu_uuid, used_memory, process_name). Process names keep their commas; a cut last line is a
// truncated listing, never a shorter one.

import { type ReadResult, readUnreadable, readValue } from '../../core/read-result.js';
import { cellOf, cellsUnder, cutLastRow, readCsv, textOf } from './csv.js';
import { isBusId, isInt, isPlaceholder, isUuid, quantity } from './text.js';
import type { ComputeApp, ProcessListing } from './types.js';

const APP_ALIASES: Record<string, string> = { used_memory: 'used_gpu_memory', name: 'process_name' };
const APP_FIELDS = new Set(['pid', 'process_name', 'gpu_uuid', 'used_gpu_memory', 'gpu_name', 'gpu_bus_id']);
const NO_PROCESSES = /^No running (compute )?processes found/i;

function appFromFields(cells: string[], fields: string[]): ComputeApp | null {
  const at = (...names: string[]) => cellOf(cells, fields, ...names);
  const pid = at('pid');
  const memCell = at('used_gpu_memory');
  const mem = quantity(memCell);
  if (!isInt(pid) || (memCell !== undefined && mem === undefined)) return null;
  const uuid = at('gpu_uuid');
  const bus = at('gpu_bus_id');
  return {
    pid: Number(pid),
    gpuUuid: uuid && isUuid(uuid) ? uuid : null,
    gpuIndex: null,
    gpuBusId: bus && isBusId(bus) ? bus : null,
    usedMemoryMiB: mem ?? null,
    processName: at('process_name') ?? 'unknown',
    type: null,
  };
}

/**
 * A row without a header in another order, read only where each cell names itself: the PID first, a
 * UUID, a bus id, the one cell with a MiB unit (memory is the only such field), one text cell left as
 * the name. Without units the numbers cannot be told apart: null.
 */
function appFromUnits(cells: string[]): ComputeApp | null {
  const mib = cells.filter((c) => /^\d+(\.\d+)?\s*MiB$/i.test(c));
  if (!isInt(cells[0]) || mib.length !== 1) return null;
  const rest = cells.slice(1).filter((c) => c !== mib[0] && !isUuid(c) && !isBusId(c));
  return {
    pid: Number(cells[0]),
    gpuUuid: cells.find(isUuid) ?? null,
    gpuIndex: null,
    gpuBusId: cells.find(isBusId) ?? null,
    usedMemoryMiB: quantity(mib[0]) ?? null,
    processName: rest.length === 1 ? rest[0] : 'unknown',
    type: null,
  };
}

/** A row in the order of APPS_QUERY (pid, gpu_uuid, used_memory, process_name), else by its units. */
function appFromOrder(cells: string[]): ComputeApp | null {
  if (cells.length < 4 || !isInt(cells[0])) return appFromUnits(cells);
  const mem = quantity(cells[2]);
  if (mem === undefined || !(isUuid(cells[1]) || isPlaceholder(cells[1]))) return appFromUnits(cells);
  return {
    pid: Number(cells[0]),
    gpuUuid: isUuid(cells[1]) ? cells[1] : null,
    gpuIndex: null,
    gpuBusId: null,
    usedMemoryMiB: mem,
    processName: textOf(cells.slice(3).join(',')) ?? cells.slice(3).join(','),
    type: null,
  };
}

/** The processes of a `--query-compute-apps` CSV output. */
export function readAppsCsv(
  lines: string[],
  text: string,
  invocation?: readonly string[],
): ReadResult<ProcessListing> {
  const csv = readCsv(lines, {
    option: 'query-compute-apps',
    known: APP_FIELDS,
    aliases: APP_ALIASES,
    skip: NO_PROCESSES,
    invocation,
  });
  if ('bad' in csv) return readUnreadable(csv.bad, text);
  const { fields, rows } = csv;
  const header = fields !== null && !csv.fromInvocation;
  if (rows.length === 0 && !header && !lines.some((l) => NO_PROCESSES.test(l.trim())))
    return readUnreadable('neither a process row, a CSV header nor "No running processes found"', text);
  const truncated = fields
    ? cutLastRow(rows, fields.length)
    : rows.length > 1
      ? cutLastRow(rows, rows[0].cells.length)
      : null;
  const whole = truncated ? rows.slice(0, -1) : rows;
  const apps: ComputeApp[] = [];
  for (const [i, r] of whole.entries()) {
    const cells = fields ? cellsUnder(r.cells, fields, ['process_name']) : r.cells;
    const a = cells && fields ? appFromFields(cells, fields) : cells ? appFromOrder(cells) : null;
    if (!a)
      return readUnreadable(`row ${i + 1} is not a process row of the query (${r.line.slice(0, 120)})`, text);
    apps.push(a);
  }
  return readValue({ apps, truncated });
}
