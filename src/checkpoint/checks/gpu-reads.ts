// What the GPU check reads from the host: nvidia-smi's inventory (the CSV query, else the default table,
// whose text also lists the processes), its process listing, `topo -m`, and the server's process tree.
// Each read keeps the command and an excerpt of its output as evidence.

import type { ReadResult } from '../../core/read-result.js';
import { processTree, readProcessTable } from '../../hosts/process-table.js';
import { type CheckContext, excerpt } from '../context.js';
import type { Evidence } from '../finding.js';
import {
  APPS_QUERY,
  GPU_QUERY,
  type GpuInventory,
  type ProcessListing,
  readGpus,
  readProcesses,
  readTopology,
  TABLE_QUERY,
  TOPO_QUERY,
  type Topology,
} from '../nvidia-smi.js';

const NVSMI_TIMEOUT_MS = 30_000;

export interface Read<T> {
  result: ReadResult<T>;
  ev: Evidence;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ev: Evidence;
}

export async function runNvidiaSmi(ctx: CheckContext, argv: string[]): Promise<Ran> {
  const r = await ctx.host.exec(argv, { timeoutMs: NVSMI_TIMEOUT_MS });
  const ev: Evidence = {
    source: 'command',
    where: argv.join(' '),
    excerpt: excerpt(r.stdout || r.stderr, 600),
  };
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, ev };
}

/** True when the command is not on the host at all (as opposed to failing). */
export function isAbsent(r: Ran): boolean {
  return (
    r.code === 127 || (r.code !== 0 && /not found|No such file/i.test(r.stderr) && r.stdout.trim() === '')
  );
}

/** An unreadable output of a command that failed says its exit status too. */
function withExit<T>(code: number | null, result: ReadResult<T>): ReadResult<T> {
  if (code === 0 || result.kind !== 'unreadable') return result;
  return { ...result, reason: `exit status ${code}; ${result.reason}` };
}

export interface Inventory extends Read<GpuInventory> {
  /** The output also holds the processes (the default table, `-q`), or null. */
  processText: string | null;
}

/** The inventory from the CSV query (`first`, the output of GPU_QUERY), else from the default table. */
export async function readInventory(ctx: CheckContext, first: Ran): Promise<Inventory> {
  const csv = withExit(first.code, readGpus(first.stdout, { query: GPU_QUERY }));
  if (csv.kind === 'value')
    return { result: csv, ev: first.ev, processText: csv.value.shape === 'csv' ? null : first.stdout };
  const table = await runNvidiaSmi(ctx, TABLE_QUERY);
  const t = withExit(table.code, readGpus(table.stdout));
  return t.kind === 'value'
    ? { result: t, ev: table.ev, processText: table.stdout }
    : { result: csv, ev: first.ev, processText: null };
}

/** The processes: from the inventory's own text when it has them, else from the compute-apps query. */
export async function readApps(ctx: CheckContext, inv: Inventory): Promise<Read<ProcessListing>> {
  if (inv.processText !== null) return { result: readProcesses(inv.processText), ev: inv.ev };
  const a = await runNvidiaSmi(ctx, APPS_QUERY);
  const result = withExit(
    a.code,
    readProcesses(a.stdout, { emptyMeansNone: a.code === 0, query: APPS_QUERY }),
  );
  return { result, ev: { ...a.ev, excerpt: a.ev.excerpt || '(no processes listed)' } };
}

export async function readTopo(ctx: CheckContext): Promise<Read<Topology>> {
  const t = await runNvidiaSmi(ctx, TOPO_QUERY);
  return { result: withExit(t.code, readTopology(t.stdout)), ev: t.ev };
}

/** The PIDs of the server and its children, or null when the server process is unknown. */
export async function serverTree(ctx: CheckContext): Promise<Set<number> | null> {
  if (!ctx.server) return null;
  const rows = await readProcessTable(ctx.host).catch(() => null);
  return rows ? processTree(rows, ctx.server.pid) : null;
}
