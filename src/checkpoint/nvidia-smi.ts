// Readers for the nvidia-smi outputs the GPU check, the matrix's GPU-release check and GPU telemetry
// consume, in every shape users paste or hosts print. Each reader picks the shape from the text itself:
// the default table (nvidia-smi/table*.ts), `-q` text (query-text.ts) or XML (`-q -x`, xml.ts), the `-L` list (list.ts), or the
// CSV of a `--query-…` (gpu-csv.ts, apps-csv.ts); `topo -m` has its own reader (topology.ts). Each
// returns a ReadResult: output that cannot be read is `unreadable` with an excerpt, output that was cut
// says what it could not see, never an empty list that would pass for "no GPUs" or "no processes".

import { type ReadResult, readUnknown, readUnreadable, readValue } from '../core/read-result.js';
import { readAppsCsv } from './nvidia-smi/apps-csv.js';
import { readGpuCsv } from './nvidia-smi/gpu-csv.js';
import { looksLikeList, readGpuList } from './nvidia-smi/list.js';
import { looksLikeQueryText, readQueryGpus, readQueryProcesses } from './nvidia-smi/query-text.js';
import { looksLikeTable, readGpuTable } from './nvidia-smi/table.js';
import { readProcessTable } from './nvidia-smi/table-processes.js';
import { busKey, failureOf, linesOf, saysNoDevices } from './nvidia-smi/text.js';
import type { ComputeApp, GpuInventory, GpuRow, ProcessListing } from './nvidia-smi/types.js';
import { looksLikeXml, readXmlGpus, readXmlProcesses } from './nvidia-smi/xml.js';

export { GPU_SAMPLE_FIELDS, type GpuSample, gpuSampleQuery, readGpuSampleLine } from './nvidia-smi/sample.js';
export { readTopology } from './nvidia-smi/topology.js';
export type {
  ComputeApp,
  GpuInventory,
  GpuRow,
  MigDevice,
  ProcessListing,
  Topology,
} from './nvidia-smi/types.js';

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

/** The label an app's GPU is shown by in findings. */
export function gpuLabel(app: ComputeApp): string {
  return app.gpuUuid ?? (app.gpuIndex !== null ? `GPU${app.gpuIndex}` : (app.gpuBusId ?? 'unknown GPU'));
}

/** True when the app runs on this GPU (by UUID, else bus id, else index, whichever both carry). */
export function appOnGpu(app: ComputeApp, gpu: GpuRow): boolean {
  if (app.gpuUuid && gpu.uuid) return app.gpuUuid === gpu.uuid;
  const appBus = busKey(app.gpuBusId);
  const gpuBus = busKey(gpu.busId);
  if (appBus && gpuBus) return appBus === gpuBus;
  return app.gpuIndex !== null && app.gpuIndex === gpu.index;
}

/** The text's lines, or why it is not nvidia-smi output (unreadable, or the driver's failure message). */
function usableLines(text: string): { lines: string[] } | { bad: ReadResult<never> } {
  const l = linesOf(text);
  if ('bad' in l) return { bad: readUnreadable(l.bad, text) };
  const failed = failureOf(l.lines);
  if (failed) return { bad: readUnreadable(`nvidia-smi reports: ${failed}`, text) };
  return l;
}

/**
 * The GPUs in any output of nvidia-smi that lists them: a `--query-gpu` CSV, the table, `-q`, `-L`.
 * `query`: the command that printed it, when known (its `--query-gpu=` names a noheader CSV's columns).
 */
export function readGpus(text: string, opts: { query?: readonly string[] } = {}): ReadResult<GpuInventory> {
  const l = usableLines(text);
  if ('bad' in l) return l.bad;
  const { lines } = l;
  if (saysNoDevices(lines))
    return readValue({
      gpus: [],
      count: 0,
      truncated: null,
      driverVersion: null,
      cudaVersion: null,
      shape: 'csv',
      migDevices: [],
    });
  if (looksLikeXml(lines)) return readXmlGpus(lines, text);
  if (looksLikeQueryText(lines)) return readQueryGpus(lines, text);
  if (looksLikeTable(lines)) return readGpuTable(lines, text);
  if (looksLikeList(lines)) return readGpuList(lines, text);
  return readGpuCsv(lines, text, opts.query);
}

/**
 * The processes in a `--query-compute-apps` CSV, the table's Processes section or `-q` output, with
 * what is known to be missing. `emptyMeansNone`: the caller ran the noheader query and it exited 0,
 * which prints nothing when no process runs; otherwise empty output is unreadable. `query`: the command
 * that printed it, when known.
 */
export function readProcesses(
  text: string,
  opts: { emptyMeansNone?: boolean; query?: readonly string[] } = {},
): ReadResult<ProcessListing> {
  if (opts.emptyMeansNone && text.trim() === '') return readValue({ apps: [], truncated: null });
  const l = usableLines(text);
  if ('bad' in l) return l.bad;
  if (looksLikeXml(l.lines)) return readXmlProcesses(l.lines);
  if (looksLikeQueryText(l.lines)) return readQueryProcesses(l.lines);
  if (looksLikeTable(l.lines)) return readProcessTable(l.lines);
  return readAppsCsv(l.lines, text, opts.query);
}

/** The processes as a complete list: a listing that was cut is unknown, never the rows it showed. */
export function readComputeApps(
  text: string,
  opts: { emptyMeansNone?: boolean; query?: readonly string[] } = {},
): ReadResult<ComputeApp[]> {
  const r = readProcesses(text, opts);
  if (r.kind !== 'value') return r;
  if (r.value.truncated) return readUnknown(`truncated: ${r.value.truncated}`);
  return readValue(r.value.apps);
}
