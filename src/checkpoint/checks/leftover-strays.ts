// The engine processes and GPU holders outside the checked server's process tree: an engine worker
// (`VLLM::EngineCore`, `sglang::scheduler_TP0`) whose server is gone (orphaned, often unkillable and
// still holding its GPU), and any process nvidia-smi shows on a GPU the server uses. Each is named with
// its PID, state, parent and age, so the user can tell an earlier start's zombie worker at a glance.

import { ADAPTERS } from '../../engines/index.js';
import type { PsRow } from '../../hosts/process-table.js';
import type { CheckContext } from '../context.js';
import { APPS_QUERY, type ComputeApp, gpuLabel, readComputeApps } from '../nvidia-smi.js';

/** Longest wait for nvidia-smi's process list. */
const NVSMI_TIMEOUT_MS = 30_000;
/** Most strays described one by one (each needs a /proc read for its age). */
export const MAX_DESCRIBED = 5;

/** True when a process carries an engine worker's title (its command line starts with it). */
export function isEngineWorker(args: string): boolean {
  const title = args.trimStart();
  return Object.values(ADAPTERS).some((a) => a.workerTitle?.test(title) === true);
}

/** True when no ancestor of `row` (up to PID 1) is a process `isServer` recognises: its server is gone. */
export function isOrphaned(rows: readonly PsRow[], row: PsRow, isServer: (args: string) => boolean): boolean {
  const byPid = new Map(rows.map((r) => [r.pid, r]));
  const seen = new Set<number>();
  let parent = byPid.get(row.ppid);
  while (parent && !seen.has(parent.pid) && parent.pid > 1) {
    if (isServer(parent.args)) return false;
    seen.add(parent.pid);
    parent = byPid.get(parent.ppid);
  }
  return true;
}

/** The GPU processes nvidia-smi lists, or why they could not be read (no nvidia-smi, a cut list). */
export async function gpuProcesses(ctx: CheckContext): Promise<ComputeApp[] | string> {
  const r = await ctx.host.exec(APPS_QUERY, { timeoutMs: NVSMI_TIMEOUT_MS }).catch(() => null);
  if (!r || r.code === 127) return 'nvidia-smi is not available';
  const apps = readComputeApps(r.stdout, { emptyMeansNone: r.code === 0, query: APPS_QUERY });
  return apps.kind === 'value' ? apps.value : `nvidia-smi's process list: ${apps.reason}`;
}

/**
 * The processes outside the server's tree holding a GPU the server uses (every GPU when nvidia-smi
 * shows none of the server's), each with the GPUs it holds; or why they cannot be told apart: the
 * server process is unknown, or nvidia-smi lists PIDs this host's `ps` does not show (another PID
 * namespace, where the server's own processes would pass for strangers).
 */
export function gpuHolders(
  apps: readonly ComputeApp[],
  rows: readonly PsRow[],
  tree: ReadonlySet<number> | null,
): Map<number, string[]> | string {
  if (tree === null) return 'the server process is unknown';
  const visible = new Set(rows.map((r) => r.pid));
  const serverGpus = new Set(apps.filter((a) => tree.has(a.pid)).map(gpuLabel));
  if (serverGpus.size === 0 && apps.some((a) => !visible.has(a.pid)))
    return "nvidia-smi lists PIDs this host's ps does not show (another PID namespace)";
  const out = new Map<number, string[]>();
  for (const a of apps) {
    if (tree.has(a.pid) || !visible.has(a.pid)) continue;
    if (serverGpus.size > 0 && !serverGpus.has(gpuLabel(a))) continue;
    out.set(a.pid, [...(out.get(a.pid) ?? []), gpuLabel(a)]);
  }
  return out;
}

/** `3h 12m`, `4m 05s`, `12s`: how long a process has been up. */
function ageText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** `PID 4242 (VLLM::EngineCore, state R, parent 1, up 2h 03m)`: the age from the process's start time. */
export async function describeStray(ctx: CheckContext, row: PsRow, why: string): Promise<string> {
  const info = await ctx.host.processInfo(row.pid).catch(() => null);
  const started = info?.startTime ? Date.parse(info.startTime) : Number.NaN;
  const age = Number.isFinite(started) ? `up ${ageText((Date.now() - started) / 1000)}` : 'age unknown';
  const name = row.args.trim().slice(0, 80);
  return `PID ${row.pid} (${name}, state ${row.stat}, parent ${row.ppid}, ${age})${why ? ` ${why}` : ''}`;
}
