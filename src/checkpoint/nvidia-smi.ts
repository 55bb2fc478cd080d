// Readers for the nvidia-smi outputs the GPU check and the matrix's GPU-release check consume, in every
// shape users paste or hosts print: `--query-gpu` / `--query-compute-apps` CSV with or without a header
// row and units, the default table (driver, CUDA, per-GPU memory, the Processes table) and `topo -m`
// aligned with tabs or spaces, with ANSI escapes. Each returns a ReadResult: an output that cannot be
// read is `unreadable` with an excerpt, never an empty list that would pass for "no GPUs".

import { type ReadResult, readUnknown, readUnreadable, readValue } from '../core/read-result.js';
import { notText } from './text-input.js';

export const GPU_QUERY = [
  'nvidia-smi',
  '--query-gpu=index,name,uuid,memory.used,memory.total',
  '--format=csv,noheader,nounits',
];
export const APPS_QUERY = [
  'nvidia-smi',
  '--query-compute-apps=pid,gpu_uuid,used_memory,process_name',
  '--format=csv,noheader,nounits',
];
export const TOPO_QUERY = ['nvidia-smi', 'topo', '-m'];
/** The default table: a second source of the inventory and processes when the CSV query cannot be read. */
export const TABLE_QUERY = ['nvidia-smi'];

export interface GpuRow {
  index: number;
  name: string;
  /** Null when the output does not carry it (the default table). */
  uuid: string | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
}

export interface GpuInventory {
  gpus: GpuRow[];
  driverVersion: string | null;
  cudaVersion: string | null;
  /** The shape read: CSV from a query, or the default table. */
  shape: 'csv' | 'table';
}

export interface ComputeApp {
  pid: number;
  /** The GPU as a UUID (CSV) or an index (default table); one of them is set. */
  gpuUuid: string | null;
  gpuIndex: number | null;
  usedMemoryMiB: number | null;
  processName: string;
}

export interface Topology {
  gpus: string[];
  /** links[i][j]: the cell between GPUi and GPUj (`X`, `NV18`, `PIX`, `PXB`, `PHB`, `NODE`, `SYS`). */
  links: string[][];
  /** nvlink when every GPU pair is joined by NV#, pcie when none is, mixed otherwise. */
  kind: 'nvlink' | 'pcie' | 'mixed' | 'single';
}

/** nvidia-smi prints a few KB; anything far larger is not its output (and is not scanned whole). */
const MAX_OUTPUT_CHARS = 1_000_000;
/** No line of nvidia-smi output is this long; longer lines are never handed to a regex. */
const MAX_LINE_CHARS = 2_000;

/** The label an app's GPU is shown by in findings. */
export function gpuLabel(app: ComputeApp): string {
  return app.gpuUuid ?? (app.gpuIndex !== null ? `GPU${app.gpuIndex}` : 'unknown GPU');
}

/** True when the app runs on this GPU (by UUID when both carry one, else by index). */
export function appOnGpu(app: ComputeApp, gpu: GpuRow): boolean {
  if (app.gpuUuid && gpu.uuid) return app.gpuUuid === gpu.uuid;
  return app.gpuIndex !== null && app.gpuIndex === gpu.index;
}

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\^\[\[[0-9;]*m/g;
/** Escapes that lost their ESC byte in a paste (`[4m` … `[0m`) at the start or end of a line. */
const BARE_SGR = /^\[[0-9;]*m|\[[0-9;]*m$/g;

/** Lines of the output with ANSI escapes and CR removed, or why the text cannot be nvidia-smi output. */
function linesOf(text: string): { lines: string[] } | { bad: string } {
  const bad = notText(text, MAX_OUTPUT_CHARS);
  if (bad) return { bad };
  const lines = text
    .split(/\r?\n|\r/)
    .map((l) => (l.length > MAX_LINE_CHARS ? l : l.replace(ANSI, '').replace(BARE_SGR, '')));
  return { lines };
}

/** nvidia-smi's placeholders for a value it could not get. */
const PLACEHOLDER =
  /^\[?(N\/A|Not Found|Insufficient Permissions|Unknown Error|Not Supported|GPU requires reset|GPU is lost|Requested functionality has been deprecated)\]?$/i;

/** A number with an optional unit (`40312`, `40312 MiB`, `45 %`, `250.50 W`, `1980 MHz`); null for a placeholder. */
function quantity(cell: string | undefined): number | null | undefined {
  const s = (cell ?? '').trim();
  if (PLACEHOLDER.test(s)) return null;
  const m = /^(-?\d+(?:\.\d+)?)\s*(MiB|GiB|KiB|%|W|MHz|C)?$/i.exec(s);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? '').toLowerCase();
  return unit === 'gib' ? n * 1024 : unit === 'kib' ? n / 1024 : n;
}

const isInt = (s: string | undefined) => /^\d+$/.test((s ?? '').trim());
const isUuid = (s: string | undefined) => /^(GPU|MIG)-[0-9a-fA-F-]+$/.test((s ?? '').trim());
/** A header cell's field name: `memory.used [MiB]` → `memory.used`. */
const fieldName = (s: string) =>
  s
    .trim()
    .replace(/\s*\[[^\]]*\]\s*$/, '')
    .toLowerCase();

/** Lines nvidia-smi may print around its CSV (driver warnings) that carry no row. */
const NOISE = /^(WARNING|Warning|NOTE):/;

function failureOf(lines: string[]): string | null {
  const joined = lines.slice(0, 20).join('\n');
  const m =
    /(NVIDIA-SMI has failed[^\n]*|Failed to initialize NVML[^\n]*|couldn't communicate with the NVIDIA driver[^\n]*|Unable to determine the device handle[^\n]*)/i.exec(
      joined,
    );
  return m ? m[1].trim() : null;
}

interface Csv {
  header: string[] | null;
  rows: { cells: string[]; line: string }[];
}

function readCsv(lines: string[], knownFields: RegExp): Csv | { bad: string; line: string } {
  const content = lines.map((l) => l.trim()).filter((l) => l !== '' && !NOISE.test(l));
  let header: string[] | null = null;
  const rows: Csv['rows'] = [];
  for (const line of content) {
    if (line.length > MAX_LINE_CHARS) return { bad: 'a line is too long for nvidia-smi CSV', line };
    const cells = line.split(',').map((c) => c.trim());
    if (header === null && rows.length === 0 && cells.some((c) => knownFields.test(fieldName(c)))) {
      header = cells.map(fieldName);
      continue;
    }
    rows.push({ cells, line });
  }
  return { header, rows };
}

function looksLikeTable(lines: string[]): boolean {
  return lines.some((l) => /NVIDIA-SMI\s+\d|Driver Version:/.test(l.slice(0, MAX_LINE_CHARS)));
}

// --- --query-gpu CSV and the default table -------------------------------------------------------

const GPU_FIELDS = /^(index|name|gpu_name|uuid|gpu_uuid|memory\.used|memory\.total|pci\.bus_id)$/;

function gpuFromCells(cells: string[], header: string[] | null): GpuRow | null {
  if (header) {
    const at = (...names: string[]) => {
      const i = header.findIndex((h) => names.includes(h));
      return i >= 0 ? cells[i] : undefined;
    };
    // a name with a comma leaves one extra cell: fold it back into the name column
    if (cells.length === header.length + 1) {
      const n = header.findIndex((h) => h === 'name' || h === 'gpu_name');
      if (n >= 0) cells = [...cells.slice(0, n), `${cells[n]},${cells[n + 1]}`, ...cells.slice(n + 2)];
    }
    if (cells.length !== header.length) return null;
    const index = at('index');
    const used = quantity(at('memory.used'));
    const total = quantity(at('memory.total'));
    if (index !== undefined && !isInt(index)) return null;
    if (used === undefined && at('memory.used') !== undefined) return null;
    if (total === undefined && at('memory.total') !== undefined) return null;
    const uuid = at('uuid', 'gpu_uuid');
    return {
      index: index !== undefined ? Number(index) : -1,
      name: at('name', 'gpu_name') ?? 'unknown',
      uuid: uuid && isUuid(uuid) ? uuid : null,
      memoryUsedMiB: used ?? null,
      memoryTotalMiB: total ?? null,
    };
  }
  // no header: the order of GPU_QUERY (index, name, uuid, memory.used, memory.total)
  if (cells.length < 5 || !isInt(cells[0])) return null;
  const used = quantity(cells[cells.length - 2]);
  const total = quantity(cells[cells.length - 1]);
  const uuid = cells[cells.length - 3];
  if (used === undefined || total === undefined || !(isUuid(uuid) || PLACEHOLDER.test(uuid))) return null;
  return {
    index: Number(cells[0]),
    name: cells.slice(1, cells.length - 3).join(','),
    uuid: isUuid(uuid) ? uuid : null,
    memoryUsedMiB: used,
    memoryTotalMiB: total,
  };
}

function readGpuCsv(lines: string[], text: string): ReadResult<GpuInventory> {
  const csv = readCsv(lines, GPU_FIELDS);
  if ('bad' in csv) return readUnreadable(csv.bad, text);
  if (csv.rows.length === 0)
    return csv.header
      ? readUnreadable('a CSV header but no GPU rows', text)
      : readUnreadable('no GPU rows', text);
  const gpus: GpuRow[] = [];
  for (const [i, r] of csv.rows.entries()) {
    const g = gpuFromCells(r.cells, csv.header);
    if (!g)
      return readUnreadable(`row ${i + 1} is not a GPU row of the query (${r.line.slice(0, 120)})`, text);
    gpus.push(g.index < 0 ? { ...g, index: i } : g);
  }
  return readValue({ gpus, driverVersion: null, cudaVersion: null, shape: 'csv' });
}

/** `|   0  NVIDIA H100 80GB HBM3   On  |   00000000:18:00.0 Off |   0 |` and the memory line below it. */
function readGpuTable(lines: string[], text: string): ReadResult<GpuInventory> {
  const head = lines.find((l) => /Driver Version:/.test(l)) ?? '';
  const driverVersion = /Driver Version:\s*([\w.]+)/.exec(head)?.[1] ?? null;
  const cuda = /CUDA Version:\s*([\w./]+)/.exec(head)?.[1] ?? null;
  const gpus: GpuRow[] = [];
  const end = lines.findIndex((l) => /Processes:/.test(l));
  const section = end >= 0 ? lines.slice(0, end) : lines;
  for (let i = 0; i < section.length; i++) {
    const line = section[i];
    if (line.length > MAX_LINE_CHARS || !line.startsWith('|')) continue;
    const cells = line.split('|');
    if (cells.length < 4 || !/^\s*[0-9A-Fa-f]+:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d/.test(cells[2])) continue;
    const words = cells[1].trim().split(/\s+/);
    if (!isInt(words[0])) continue;
    const tail = words.length > 2 && /^(On|Off|N\/A|WDDM|TCC)$/.test(words[words.length - 1]) ? 1 : 0;
    const name = words.slice(1, words.length - tail).join(' ');
    const memCell = (section[i + 1] ?? '').split('|')[2] ?? '';
    const mem = /(\d+)\s*MiB\s*\/\s*(\d+)\s*MiB/.exec(memCell);
    gpus.push({
      index: Number(words[0]),
      name: name || 'unknown',
      uuid: null,
      memoryUsedMiB: mem ? Number(mem[1]) : null,
      memoryTotalMiB: mem ? Number(mem[2]) : null,
    });
  }
  if (gpus.length === 0) {
    if (/No devices were found/i.test(text.slice(0, 4096)))
      return readValue({ gpus, driverVersion, cudaVersion: cuda, shape: 'table' });
    return readUnreadable('an nvidia-smi table with no GPU rows', text);
  }
  return readValue({ gpus, driverVersion, cudaVersion: cuda === 'N/A' ? null : cuda, shape: 'table' });
}

/** The GPUs in the output of `--query-gpu` (any CSV form) or of plain `nvidia-smi`. */
export function readGpus(text: string): ReadResult<GpuInventory> {
  const l = linesOf(text);
  if ('bad' in l) return readUnreadable(l.bad, text);
  const failed = failureOf(l.lines);
  if (failed) return readUnreadable(`nvidia-smi reports: ${failed}`, text);
  if (/^\s*No devices were found/im.test(text.slice(0, 4096)))
    return readValue({ gpus: [], driverVersion: null, cudaVersion: null, shape: 'csv' });
  return looksLikeTable(l.lines) ? readGpuTable(l.lines, text) : readGpuCsv(l.lines, text);
}

// --- --query-compute-apps CSV and the table's Processes section ----------------------------------

const APP_FIELDS = /^(pid|process_name|name|gpu_uuid|used_gpu_memory|used_memory|gpu_name|gpu_bus_id)$/;

function appFromCells(cells: string[], header: string[] | null): ComputeApp | null {
  if (header) {
    if (cells.length > header.length) {
      // a process name with commas: fold the extra cells back into it
      const n = header.findIndex((h) => h === 'process_name' || h === 'name');
      if (n < 0) return null;
      const extra = cells.length - header.length;
      cells = [...cells.slice(0, n), cells.slice(n, n + extra + 1).join(','), ...cells.slice(n + extra + 1)];
    }
    if (cells.length !== header.length) return null;
    const at = (...names: string[]) => {
      const i = header.findIndex((h) => names.includes(h));
      return i >= 0 ? cells[i] : undefined;
    };
    const pid = at('pid');
    const mem = quantity(at('used_gpu_memory', 'used_memory'));
    if (!isInt(pid)) return null;
    if (mem === undefined && at('used_gpu_memory', 'used_memory') !== undefined) return null;
    const uuid = at('gpu_uuid');
    return {
      pid: Number(pid),
      gpuUuid: uuid && isUuid(uuid) ? uuid : null,
      gpuIndex: null,
      usedMemoryMiB: mem ?? null,
      processName: at('process_name', 'name') ?? 'unknown',
    };
  }
  // no header: the order of APPS_QUERY (pid, gpu_uuid, used_memory, process_name)
  if (cells.length < 4 || !isInt(cells[0])) return null;
  const mem = quantity(cells[2]);
  if (mem === undefined || !(isUuid(cells[1]) || PLACEHOLDER.test(cells[1]))) return null;
  return {
    pid: Number(cells[0]),
    gpuUuid: isUuid(cells[1]) ? cells[1] : null,
    gpuIndex: null,
    usedMemoryMiB: mem,
    processName: cells.slice(3).join(','),
  };
}

function readAppsCsv(lines: string[], text: string): ReadResult<ComputeApp[]> {
  const csv = readCsv(
    lines.filter((l) => !/^\s*No running (compute )?processes found/i.test(l)),
    APP_FIELDS,
  );
  if ('bad' in csv) return readUnreadable(csv.bad, text);
  const apps: ComputeApp[] = [];
  for (const [i, r] of csv.rows.entries()) {
    const a = appFromCells(r.cells, csv.header);
    if (!a)
      return readUnreadable(`row ${i + 1} is not a process row of the query (${r.line.slice(0, 120)})`, text);
    apps.push(a);
  }
  return readValue(apps);
}

const PROCESS_TYPE = /^(C|G|M|C\+G|M\+C|M\+G)$/;

/** `|    0   N/A  N/A    12345      C   /usr/bin/python3     32756MiB |` (with or without GI/CI). */
function readAppsTable(lines: string[]): ReadResult<ComputeApp[]> {
  const start = lines.findIndex((l) => /Processes:/.test(l));
  if (start < 0) return readUnknown('the nvidia-smi table has no Processes section (cut short?)');
  const apps: ComputeApp[] = [];
  let sawEnd = false;
  for (const line of lines.slice(start + 1)) {
    if (line.length > MAX_LINE_CHARS) continue;
    const inner = line
      .replace(/^\s*\|/, '')
      .replace(/\|\s*$/, '')
      .trim();
    if (/No running processes found/i.test(inner)) {
      sawEnd = true;
      continue;
    }
    if (/^\+-+\+$/.test(line.trim())) {
      sawEnd = true;
      continue;
    }
    const w = inner.split(/\s+/);
    const t = w.findIndex((x, i) => i >= 2 && PROCESS_TYPE.test(x) && isInt(w[i - 1]));
    if (t < 0 || !isInt(w[0]) || w.length < t + 3) continue;
    const mem = quantity(w[w.length - 1].replace(/MiB$/i, ' MiB'));
    apps.push({
      pid: Number(w[t - 1]),
      gpuUuid: null,
      gpuIndex: Number(w[0]),
      usedMemoryMiB: mem ?? null,
      processName: w.slice(t + 1, w.length - 1).join(' '),
    });
  }
  if (!sawEnd && apps.length === 0)
    return readUnknown('the Processes section of the nvidia-smi table is cut short');
  return readValue(apps);
}

/**
 * The processes in the output of `--query-compute-apps` (any CSV form) or of plain `nvidia-smi`.
 * `emptyMeansNone`: the caller ran the noheader query and it exited 0, which prints nothing when no
 * process runs; otherwise empty output is unreadable.
 */
export function readComputeApps(
  text: string,
  opts: { emptyMeansNone?: boolean } = {},
): ReadResult<ComputeApp[]> {
  if (opts.emptyMeansNone && text.trim() === '') return readValue([]);
  const l = linesOf(text);
  if ('bad' in l) return readUnreadable(l.bad, text);
  const failed = failureOf(l.lines);
  if (failed) return readUnreadable(`nvidia-smi reports: ${failed}`, text);
  return looksLikeTable(l.lines) ? readAppsTable(l.lines) : readAppsCsv(l.lines, text);
}

// --- topo -m ---------------------------------------------------------------------------------------

const LINK = /^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$/;

/** The GPU link matrix of `nvidia-smi topo -m`, aligned with tabs or spaces. */
export function readTopology(text: string): ReadResult<Topology> {
  const l = linesOf(text);
  if ('bad' in l) return readUnreadable(l.bad, text);
  const failed = failureOf(l.lines);
  if (failed) return readUnreadable(`nvidia-smi reports: ${failed}`, text);
  const rows = l.lines.filter((x) => x.length <= MAX_LINE_CHARS).map((x) => x.trim().split(/\s+/));
  // the header: GPU0 then another device column or `CPU Affinity`; a GPU row has a link code second
  const headIdx = rows.findIndex((w) => w[0] === 'GPU0' && w[1] !== undefined && !LINK.test(w[1]));
  if (headIdx < 0) return readUnreadable('no header row starting with GPU0', text);
  const header = rows[headIdx];
  let devices = 0;
  // device columns (GPU#, NIC#, or NIC names such as mlx5_0 in older drivers) come before the
  // `CPU Affinity`, `NUMA Affinity` and `GPU NUMA ID` columns
  while (devices < header.length && header[devices] !== 'CPU' && header[devices] !== 'NUMA') devices++;
  const gpuCols = header.slice(0, devices).flatMap((c, i) => (/^GPU\d+$/.test(c) ? [i] : []));
  const gpus = gpuCols.map((i) => header[i]);
  const links: string[][] = [];
  for (const w of rows.slice(headIdx + 1)) {
    if (!/^GPU\d+$/.test(w[0] ?? '')) continue;
    const cells = w.slice(1, 1 + devices);
    if (cells.length < devices || !cells.every((c) => LINK.test(c)))
      return readUnreadable(`the row of ${w[0]} is not a row of link codes`, text);
    links.push(gpuCols.map((i) => cells[i]));
    if (links.length === gpus.length) break;
  }
  if (links.length !== gpus.length)
    return readUnreadable(`${gpus.length} GPU columns but ${links.length} GPU rows`, text);
  let nv = 0;
  let other = 0;
  for (let i = 0; i < links.length; i++) {
    for (let j = 0; j < links.length; j++) {
      if (i === j) continue;
      if (/^NV\d+$/.test(links[i][j])) nv++;
      else other++;
    }
  }
  const kind = gpus.length < 2 ? 'single' : other === 0 ? 'nvlink' : nv === 0 ? 'pcie' : 'mixed';
  return readValue({ gpus, links, kind });
}

// --- the sampling query (GPU telemetry during a level) ----------------------------------------------

/** The fields sampled during every level, in this order (nounits: W, MiB, %, MHz). */
export const GPU_SAMPLE_FIELDS = 'index,utilization.gpu,memory.used,power.draw,clocks.sm,clocks.gr';

/** One long-running nvidia-smi printing a line per GPU every `intervalMs`. */
export function gpuSampleQuery(intervalMs: number): string[] {
  return [
    'nvidia-smi',
    `--query-gpu=${GPU_SAMPLE_FIELDS}`,
    '--format=csv,noheader,nounits',
    '-lms',
    String(Math.max(1, Math.round(intervalMs))),
  ];
}

/** One GPU at one instant; a figure the GPU does not report (`[N/A]`, `[Not Supported]`) is null. */
export interface GpuSample {
  gpu: number;
  utilizationPct: number | null;
  memoryUsedMiB: number | null;
  powerW: number | null;
  smClockMHz: number | null;
  graphicsClockMHz: number | null;
}

/** One line of the sampling query's output; anything else (a header, a driver message) is unreadable. */
export function readGpuSampleLine(line: string): ReadResult<GpuSample> {
  if (line.length > MAX_LINE_CHARS) return readUnreadable('a line too long for nvidia-smi CSV', line);
  const clean = line.replace(ANSI, '').trim();
  const cells = clean.split(',').map((c) => c.trim());
  if (cells.length !== 6 || !isInt(cells[0]))
    return readUnreadable(`not a line of the query ${GPU_SAMPLE_FIELDS}`, line);
  const [util, mem, power, sm, gr] = cells.slice(1).map(quantity);
  if ([util, mem, power, sm, gr].some((v) => v === undefined))
    return readUnreadable('a cell is neither a number nor an nvidia-smi placeholder', line);
  return readValue({
    gpu: Number(cells[0]),
    utilizationPct: util ?? null,
    memoryUsedMiB: mem ?? null,
    powerW: power ?? null,
    smClockMHz: sm ?? null,
    graphicsClockMHz: gr ?? null,
  });
}
