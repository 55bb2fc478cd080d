// `nvidia-smi -q` (and `-q -d MEMORY,UTILIZATION,…`): the NVSMI LOG, a `Key : Value` outline indented by
// four spaces a level. Read: the driver and CUDA versions, "Attached GPUs" (the count, printed first,
// so a cut later on still knows it), and per `GPU 00000000:18:00.0` block the product name, UUID, FB
// memory, GPU utilisation, MIG mode and the Processes entries. Key widths differ between drivers.

import { type ReadResult, readUnknown, readUnreadable, readValue } from '../../core/read-result.js';
import { isBusId, isInt, isPlaceholder, MAX_LINE_CHARS, quantity } from './text.js';
import { type ComputeApp, type GpuInventory, type GpuRow, gpuRow, type ProcessListing } from './types.js';

/** True when the text is `nvidia-smi -q` output. */
export function looksLikeQueryText(lines: string[]): boolean {
  return lines.slice(0, 60).some((l) => /=+NVSMI LOG=+|^\s*Attached GPUs\s*:/.test(l.slice(0, 200)));
}

interface Entry {
  depth: number;
  key: string;
  value: string | null;
}

/** `    FB Memory Usage` → depth 1, no value; `        Used   : 12 MiB` → depth 2, `12 MiB`. */
function entryOf(line: string): Entry | null {
  if (line.length > MAX_LINE_CHARS || line.trim() === '') return null;
  const indent = line.length - line.trimStart().length;
  const m = /^(.*?\S)\s*:\s?(.*)$/.exec(line.trim());
  const depth = Math.floor(indent / 4);
  return m ? { depth, key: m[1], value: m[2].trim() } : { depth, key: line.trim(), value: null };
}

interface Block {
  busId: string;
  entries: Entry[];
}

function blocksOf(lines: string[]): { head: Entry[]; blocks: Block[] } {
  const head: Entry[] = [];
  const blocks: Block[] = [];
  for (const line of lines) {
    const gpu = /^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$/.exec(line.trimEnd());
    if (gpu) {
      blocks.push({ busId: gpu[1], entries: [] });
      continue;
    }
    const e = entryOf(line);
    if (e) (blocks.length > 0 ? blocks[blocks.length - 1].entries : head).push(e);
  }
  return { head, blocks };
}

/** The value of `key` inside the section `section` (depth-1 heading) of a block, or of a depth-1 key. */
function valueIn(entries: Entry[], key: string, section?: string): string | null {
  let inSection = section === undefined;
  for (const e of entries) {
    if (section !== undefined && e.depth <= 1) inSection = e.key === section && e.value === null;
    if (
      inSection &&
      e.key === key &&
      e.value !== null &&
      (section === undefined ? e.depth === 1 : e.depth === 2)
    )
      return e.value;
  }
  return null;
}

const number = (v: string | null): number | null => (v === null ? null : (quantity(v) ?? null));

function gpuOf(block: Block, index: number): GpuRow {
  const e = block.entries;
  const name = valueIn(e, 'Product Name');
  const uuid = valueIn(e, 'GPU UUID');
  const mig = valueIn(e, 'Current', 'MIG Mode');
  return gpuRow(index, {
    name: name && !isPlaceholder(name) ? name : null,
    uuid: uuid && !isPlaceholder(uuid) ? uuid : null,
    busId: isBusId(block.busId) ? block.busId : null,
    memoryUsedMiB: number(valueIn(e, 'Used', 'FB Memory Usage')),
    memoryTotalMiB: number(valueIn(e, 'Total', 'FB Memory Usage')),
    utilizationPct: number(valueIn(e, 'Gpu', 'Utilization')),
    migEnabled: mig === 'Enabled' ? true : mig === 'Disabled' ? false : null,
  });
}

const hasProcesses = (b: Block) => b.entries.some((e) => e.depth === 1 && e.key === 'Processes');

/** The GPUs of `nvidia-smi -q` output. */
export function readQueryGpus(lines: string[], text: string): ReadResult<GpuInventory> {
  const { head, blocks } = blocksOf(lines);
  const attached = head.find((x) => x.key === 'Attached GPUs')?.value ?? null;
  const count = attached !== null && isInt(attached) ? Number(attached) : null;
  if (blocks.length === 0 && count !== 0)
    return readUnreadable('nvidia-smi -q output with no GPU section', text);
  const gpus = blocks.map(gpuOf);
  const version = (k: string) => {
    const v = head.find((x) => x.key === k)?.value ?? null;
    return v && !isPlaceholder(v) ? v : null;
  };
  const lastCut = blocks.some(hasProcesses) && !hasProcesses(blocks[blocks.length - 1]);
  const truncated =
    count === null
      ? 'the output is cut before "Attached GPUs"'
      : gpus.length < count
        ? `${count} GPUs attached but ${gpus.length} shown (cut short, or one GPU selected with -i)`
        : lastCut
          ? `the output is cut inside the block of GPU ${blocks[blocks.length - 1].busId}`
          : null;
  return readValue({
    gpus,
    count,
    truncated,
    driverVersion: version('Driver Version'),
    cudaVersion: version('CUDA Version'),
    shape: 'query',
    migDevices: [],
  });
}

/** The `Processes` entries of every GPU block (`Processes : None` lists none). */
export function readQueryProcesses(lines: string[]): ReadResult<ProcessListing> {
  const { blocks } = blocksOf(lines);
  if (blocks.length === 0 || !blocks.some(hasProcesses))
    return readUnknown(
      'the nvidia-smi -q output has no Processes entries (cut, or a -d selection without PIDS)',
    );
  const apps: ComputeApp[] = [];
  for (const block of blocks) {
    let inProcesses = false;
    for (const e of block.entries) {
      if (e.depth <= 1) inProcesses = e.key === 'Processes' && e.value === null;
      if (!inProcesses) continue;
      if (e.key === 'Process ID' && e.value !== null && isInt(e.value))
        apps.push({
          pid: Number(e.value),
          gpuUuid: valueIn(block.entries, 'GPU UUID'),
          gpuIndex: null,
          gpuBusId: block.busId,
          usedMemoryMiB: null,
          processName: '',
          type: null,
        });
      const app = apps[apps.length - 1];
      if (!app || e.depth < 3) continue;
      if (e.key === 'Type') app.type = e.value;
      if (e.key === 'Name') app.processName = e.value ?? '';
      if (e.key === 'Used GPU Memory') app.usedMemoryMiB = number(e.value);
    }
  }
  const cut = !hasProcesses(blocks[blocks.length - 1]);
  return readValue({
    apps,
    truncated: cut ? "the output is cut before the last GPU's Processes entries" : null,
  });
}
