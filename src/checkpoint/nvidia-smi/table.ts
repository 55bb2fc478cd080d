// The GPUs of nvidia-smi's default table, every driver generation: the 79-column layout (≤ 530, with or
// without the "MIG M." line), the 87/89-column one (535+), the 580+ header whose second line is a border,
// Windows' Driver-Model column, `KMD Version` / `CUDA UMD Version` headers, MIG devices. The count is
// known only when the GPU section is seen to end (the MIG or Processes section follows): a table cut
// after GPU1 is "at least 2 GPUs, the rest unknown", never "2 GPUs".

import { type ReadResult, readUnknown, readUnreadable, readValue } from '../../core/read-result.js';
import {
  closedCells,
  findLine,
  isBorder,
  isComplete,
  isRow,
  isSeparator,
  opensSection,
  PROCESS_COLUMNS_RE,
  tableLines,
} from './table-lines.js';
import { isBusId, isInt, isPlaceholder, versionAfter } from './text.js';
import { type GpuInventory, type GpuRow, gpuRow, type MigDevice } from './types.js';

/** True when the text holds any part of the default table (its header or its Processes section). */
export function looksLikeTable(lines: string[]): boolean {
  return lines.some(
    (l) =>
      l.length < 400 &&
      (/NVIDIA-SMI\s+\d|Driver Version:|KMD Version:/.test(l) ||
        /^\s*\|\s*Processes:/.test(l) ||
        PROCESS_COLUMNS_RE.test(l)),
  );
}

/** `(On|Off|WDDM|…)` at the end of the name cell: persistence mode or the Windows driver model. */
const NAME_CELL_TAIL = /^(On|Off|N\/A|WDDM|TCC|MCDM)$/;

/** The facts of one GPU block (its 2 or 3 lines), from the cells each line closes. */
function gpuFromBlock(block: string[]): GpuRow | null {
  const first = closedCells(block[0]);
  const words = (first[0] ?? block[0].replace(/^\|/, '')).trim().split(/\s+/);
  if (!isInt(words[0])) return null;
  const row = gpuRow(Number(words[0]));
  if (first.length >= 1) {
    const tail = words.length > 2 && NAME_CELL_TAIL.test(words[words.length - 1]) ? 1 : 0;
    const name = words.slice(1, words.length - tail).join(' ');
    row.name = name === '' || isPlaceholder(name) ? null : name;
    row.nameCut = /\.\.\.$/.test(name);
  }
  const bus = (first[1] ?? '').trim().split(/\s+/)[0];
  row.busId = isBusId(bus) ? bus : null;
  const second = block[1] ? closedCells(block[1]) : [];
  const mem = /^(\d+)\s*MiB\s*\/\s*(\d+)\s*MiB$/.exec((second[1] ?? '').trim());
  if (mem) {
    row.memoryUsedMiB = Number(mem[1]);
    row.memoryTotalMiB = Number(mem[2]);
  }
  const util = /^(\d+)\s*%/.exec((second[2] ?? '').trim());
  row.utilizationPct = util ? Number(util[1]) : null;
  const mig = /^(Enabled|Disabled)\*?$/.exec((closedCells(block[2] ?? '')[2] ?? '').trim());
  row.migEnabled = mig ? mig[1] === 'Enabled' : null;
  return row;
}

/** A line that starts a GPU block: `|   0  NVIDIA H100 …  On  |   00000000:18:00.0 Off |`. */
const opensGpuBlock = (l: string): boolean =>
  /^\|\s*\d+\s+\S/.test(l) && !/^\|\s*\d+\s+\d+\s+\d+\s+\d+\s+\|/.test(l);

interface GpuSection {
  blocks: string[][];
  /** Index of the line after the section; -1 when the text ended inside or right after it. */
  next: number;
  /** True when the last block had no closing border. */
  cutInBlock: boolean;
}

/** The GPU blocks after the column header's `|===|` separator, up to the first line that is not one. */
function gpuSection(lines: string[], from: number): GpuSection {
  const blocks: string[][] = [];
  let open: string[] | null = null;
  for (let i = from; i < lines.length; i++) {
    const l = lines[i];
    if (isBorder(l)) {
      if (open) blocks.push(open);
      open = null;
      continue;
    }
    if (open && isRow(l) && !opensGpuBlock(l)) {
      open.push(l);
      continue;
    }
    if (isRow(l) && opensGpuBlock(l)) {
      if (open) blocks.push(open);
      open = [l];
      continue;
    }
    if (open) blocks.push(open);
    return { blocks, next: i, cutInBlock: false };
  }
  if (open) blocks.push(open);
  return { blocks, next: -1, cutInBlock: open !== null };
}

/** The version line's driver and CUDA versions (a value cut by the terminal is not read). */
function versions(lines: string[]): { driverVersion: string | null; cudaVersion: string | null } {
  const head = lines.find((l) => /NVIDIA-SMI\s+\d|Driver Version:|KMD Version:/.test(l)) ?? '';
  const whole = isComplete(head);
  return {
    driverVersion: versionAfter(/(?:Driver|KMD) Version:/, head, whole),
    cudaVersion: versionAfter(/CUDA (?:UMD )?Version:/, head, whole),
  };
}

/** Why the GPU list may go on past what the text shows, or null when its end is seen. */
function cutReason(lines: string[], section: GpuSection, last: GpuRow | undefined): string | null {
  const after = last ? `GPU${last.index}` : 'the column header';
  if (section.cutInBlock) return `the output is cut inside the block of ${after}`;
  const following = section.next < 0 ? -1 : findLine(lines, section.next, (l) => l !== '');
  const l = following < 0 ? '' : lines[following];
  if (isBorder(l) || opensSection(l, 'Processes') || opensSection(l, 'MIG devices')) return null;
  return `the output ends after the block of ${after} without the section nvidia-smi prints after the last GPU, so more GPUs may follow`;
}

/** The rows of the "MIG devices" section (none when it says "No MIG devices found"). */
function migDevices(lines: string[]): MigDevice[] {
  const start = findLine(lines, 0, (l) => opensSection(l, 'MIG devices'));
  if (start < 0) return [];
  const out: MigDevice[] = [];
  for (let i = findLine(lines, start, isSeparator) + 1; i > 0 && i < lines.length; i++) {
    const l = lines[i];
    if (l === '' || opensSection(l, 'Processes')) break;
    const cells = closedCells(l);
    const ids = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$/.exec(cells[0] ?? '');
    if (!ids) continue;
    const mem = /^(\d+)\s*MiB\s*\/\s*(\d+)\s*MiB$/.exec((cells[1] ?? '').trim());
    out.push({
      gpuIndex: Number(ids[1]),
      gpuInstanceId: Number(ids[2]),
      computeInstanceId: Number(ids[3]),
      migIndex: Number(ids[4]),
      memoryUsedMiB: mem ? Number(mem[1]) : null,
      memoryTotalMiB: mem ? Number(mem[2]) : null,
    });
  }
  return out;
}

/** The GPUs of the default table, with the driver and CUDA versions of its header. */
export function readGpuTable(rawLines: string[], text: string): ReadResult<GpuInventory> {
  const lines = tableLines(rawLines);
  const header = findLine(lines, 0, (l) => /^\|\s*GPU\s+Name/.test(l));
  if (header < 0) {
    if (findLine(lines, 0, (l) => opensSection(l, 'Processes') || PROCESS_COLUMNS_RE.test(l)) >= 0)
      return readUnknown('the text holds only the Processes section of the nvidia-smi table, not its GPUs');
    return readUnreadable('an nvidia-smi table header but no GPU column header (cut short?)', text);
  }
  const sep = findLine(lines, header, isSeparator);
  if (sep < 0) return readUnknown('the nvidia-smi table is cut inside its column header');
  const section = gpuSection(lines, sep + 1);
  const gpus = section.blocks.map(gpuFromBlock).filter((g): g is GpuRow => g !== null);
  if (gpus.length === 0) return readUnreadable('an nvidia-smi table with no GPU rows', text);
  const truncated = cutReason(lines, section, gpus[gpus.length - 1]);
  return readValue({
    gpus,
    count: truncated ? null : gpus.length,
    truncated,
    ...versions(lines),
    shape: 'table',
    migDevices: migDevices(lines),
  });
}
