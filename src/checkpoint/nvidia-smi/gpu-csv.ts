// `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]` as GPUs: any field order and width when a
// header (or the pasted command line) names the columns; without one, benchgate's own query order, else
// only what identifies itself (an index first, a UUID, a bus id, a product name). A `-l` loop that
// printed the GPUs several times counts each GPU once (by UUID, bus id or index), keeping its last sample.

import { type ReadResult, readUnreadable, readValue } from '../../core/read-result.js';
import { cellOf, cellsUnder, cutLastRow, readCsv, textOf } from './csv.js';
import { busKey, isBusId, isInt, isPlaceholder, isUuid, quantity } from './text.js';
import { type GpuInventory, type GpuRow, gpuRow } from './types.js';

const GPU_ALIASES: Record<string, string> = {
  gpu_name: 'name',
  gpu_uuid: 'uuid',
  gpu_bus_id: 'pci.bus_id',
  'utilization.gpu': 'utilization.gpu',
};
const GPU_FIELDS = new Set([
  'index',
  'name',
  'uuid',
  'pci.bus_id',
  'memory.used',
  'memory.total',
  'memory.free',
  'utilization.gpu',
  'driver_version',
  'count',
  'temperature.gpu',
  'power.draw',
  'timestamp',
]);
/** Columns of a compute-apps query: such a CSV lists processes, not GPUs. */
const PROCESS_FIELDS = new Set(['pid', 'process_name', 'used_gpu_memory', 'used_memory']);
/** Above any GPU index a host has: a number this large first in a row is something else (a PID). */
const MAX_GPU_INDEX = 256;
/** A product name where no header says which column holds it. */
const PRODUCT_NAME = /^(NVIDIA|Tesla|Quadro|GeForce|TITAN|GRID|RTX)\b/i;

type RowRead = { gpu: GpuRow; driver: string | null; count: number | null } | { bad: string };

/** A row under named columns; a figure that is neither a number nor a placeholder makes it unreadable. */
function gpuFromFields(cells: string[], fields: string[], position: number): RowRead {
  const at = (...names: string[]) => cellOf(cells, fields, ...names);
  const num = (field: string): number | null | 'bad' => {
    const cell = at(field);
    if (cell === undefined) return null;
    const q = quantity(cell);
    return q === undefined ? 'bad' : q;
  };
  const index = at('index');
  if (index !== undefined && !isInt(index)) return { bad: `index "${index}" is not a number` };
  const figures = { used: num('memory.used'), total: num('memory.total'), util: num('utilization.gpu') };
  const badField = Object.entries(figures).find(([, v]) => v === 'bad');
  if (badField) return { bad: `a ${badField[0]} cell is neither a number nor an nvidia-smi placeholder` };
  const uuid = at('uuid');
  const bus = at('pci.bus_id');
  const count = at('count');
  return {
    gpu: gpuRow(index !== undefined ? Number(index) : position, {
      name: textOf(at('name')),
      uuid: uuid && isUuid(uuid) ? uuid : null,
      busId: bus && isBusId(bus) ? bus : null,
      memoryUsedMiB: figures.used as number | null,
      memoryTotalMiB: figures.total as number | null,
      utilizationPct: figures.util as number | null,
    }),
    driver: textOf(at('driver_version')),
    count: count !== undefined && isInt(count) ? Number(count) : null,
  };
}

/** A row without a header: benchgate's query order (index, name, uuid, used, total), else what identifies itself. */
function gpuFromOrder(cells: string[], position: number): RowRead {
  const used = quantity(cells[cells.length - 2]);
  const total = quantity(cells[cells.length - 1]);
  const uuid = cells[cells.length - 3];
  if (cells.length >= 5 && isInt(cells[0]) && used !== undefined && total !== undefined) {
    if (isUuid(uuid) || isPlaceholder(uuid))
      return {
        gpu: gpuRow(Number(cells[0]), {
          name: textOf(cells.slice(1, cells.length - 3).join(',')),
          uuid: isUuid(uuid) ? uuid : null,
          memoryUsedMiB: used,
          memoryTotalMiB: total,
        }),
        driver: null,
        count: null,
      };
  }
  const names = cells.filter((c) => PRODUCT_NAME.test(c));
  const ids = cells.filter(isUuid);
  const buses = cells.filter(isBusId);
  if (names.length > 1 || ids.length > 1 || buses.length > 1) return { bad: 'more than one GPU in one row' };
  const [name = null, id = null, bus = null] = [names[0], ids[0], buses[0]];
  // a first cell that is a whole number is the index, unless no host has that many GPUs (a PID)
  const index = isInt(cells[0]) && Number(cells[0]) < MAX_GPU_INDEX ? Number(cells[0]) : null;
  if (index === null && !name && !id && !bus) return { bad: 'no index, name, UUID or bus id in it' };
  return {
    gpu: gpuRow(index ?? position, { name, uuid: id, busId: bus }),
    driver: null,
    count: null,
  };
}

/** One GPU per UUID, bus id or index (the last sample of each, in first-seen order). */
function onePerGpu(gpus: GpuRow[], hasIndex: boolean): GpuRow[] {
  const key = (g: GpuRow) => g.uuid ?? busKey(g.busId) ?? (hasIndex ? `#${g.index}` : null);
  const byKey = new Map<string, number>();
  const out: GpuRow[] = [];
  for (const g of gpus) {
    const k = key(g);
    const seen = k === null ? undefined : byKey.get(k);
    if (seen !== undefined) out[seen] = g;
    else {
      if (k !== null) byKey.set(k, out.length);
      out.push(g);
    }
  }
  return out;
}

/** The GPUs of a `--query-gpu` CSV output. */
export function readGpuCsv(
  lines: string[],
  text: string,
  invocation?: readonly string[],
): ReadResult<GpuInventory> {
  const csv = readCsv(lines, { option: 'query-gpu', known: GPU_FIELDS, aliases: GPU_ALIASES, invocation });
  if ('bad' in csv) return readUnreadable(csv.bad, text);
  const { fields, rows } = csv;
  if (fields?.some((f) => PROCESS_FIELDS.has(f)))
    return readUnreadable('a --query-compute-apps CSV (processes), not a list of GPUs', text);
  if (rows.length === 0)
    return readUnreadable(
      fields && !csv.fromInvocation ? 'a CSV header but no GPU rows' : 'no GPU rows',
      text,
    );
  const width = fields?.length ?? rows[0].cells.length;
  const truncated = rows.length > 1 || fields ? cutLastRow(rows, width) : null;
  const whole = truncated ? rows.slice(0, -1) : rows;
  const read: GpuRow[] = [];
  let driver: string | null = null;
  let count: number | null = null;
  for (const [i, r] of whole.entries()) {
    const cells = fields ? cellsUnder(r.cells, fields, ['name']) : r.cells;
    const row =
      fields && cells ? gpuFromFields(cells, fields, i) : cells ? gpuFromOrder(cells, i) : { bad: 'cells' };
    if ('bad' in row)
      return readUnreadable(`row ${i + 1} is not a GPU row of the query (${r.line.slice(0, 120)})`, text);
    read.push(row.gpu);
    driver ??= row.driver;
    count ??= row.count;
  }
  const hasIndex = fields ? fields.includes('index') : whole.every((r) => isInt(r.cells[0]));
  const gpus = onePerGpu(read, hasIndex);
  return readValue({
    gpus,
    count: truncated ? null : (count ?? gpus.length),
    truncated,
    driverVersion: driver,
    cudaVersion: null,
    shape: 'csv',
    migDevices: [],
  });
}
