// The GPU check's rules on memory and processes. gpus.memory: memory in use beyond the plan's limit fails
// unless nvidia-smi's process list shows it is the server's: whatever the list says, 12.8 GiB in use with
// no process visible (another container's, whose PID namespace hides it) is over the limit, named with the
// GPU and the figure. gpus.processes: a process the listing shows that is not the server's.

import type { ReadResult } from '../../core/read-result.js';
import type { GpuSpec } from '../../plan/schema.js';
import { finding } from '../context.js';
import type { Evidence, Finding } from '../finding.js';
import {
  APPS_QUERY,
  appOnGpu,
  type ComputeApp,
  type GpuInventory,
  type ProcessListing,
} from '../nvidia-smi.js';
import { unread, unseenGpus, WHERE_GPUS } from './gpu-rules.js';

const MEMORY_TITLE = "GPU memory in use (not the server's)";
const PROCESSES_TITLE = 'No foreign processes on the GPUs';
const WHERE_APPS = `\`${APPS_QUERY.join(' ')}\``;
/** Memory an idle GPU shows with no process (driver and context reservations); above it, something holds it. */
export const IDLE_GPU_MIB = 128;

export interface ProcessFacts {
  inv: GpuInventory;
  apps: ReadResult<ProcessListing>;
  /** The server's PIDs, or null when the server process is unknown. */
  tree: Set<number> | null;
  /** True when a server answers or its process was found. */
  serverRunning: boolean;
  gpuEv: Evidence;
  appsEv: Evidence;
}

/**
 * Why the memory on a GPU cannot be split into the server's and anyone else's, or null when it can:
 * no server runs (all of it is someone else's), or the complete process list and the server's PIDs
 * are known.
 */
function attributionGap(f: ProcessFacts): string | null {
  if (f.apps.kind !== 'value') return `the process list could not be read (${f.apps.reason})`;
  if (f.apps.value.truncated) return `the process list is cut (${f.apps.value.truncated})`;
  if (f.apps.value.apps.length === 0)
    return 'no process is visible to nvidia-smi (likely another container or PID namespace)';
  if (!f.serverRunning) return null;
  return f.tree ? null : "the server process is unknown, so none of it can be told to be the server's";
}

/** The memory on each GPU over the limit that is not shown to be the server's, with why. */
function overLimit(f: ProcessFacts, limit: number): string[] {
  const gap = attributionGap(f);
  const apps = f.apps.kind === 'value' ? f.apps.value.apps : [];
  const out: string[] = [];
  for (const g of f.inv.gpus) {
    if (g.memoryUsedMiB === null || g.memoryUsedMiB <= limit) continue;
    const serverMiB = apps
      .filter((p) => appOnGpu(p, g) && f.tree?.has(p.pid))
      .reduce((s, p) => s + (p.usedMemoryMiB ?? 0), 0);
    const other = gap ? g.memoryUsedMiB : g.memoryUsedMiB - serverMiB;
    if (other > limit)
      out.push(
        gap ? `GPU${g.index}: ${g.memoryUsedMiB} MiB in use and ${gap}` : `GPU${g.index}: ${other} MiB`,
      );
  }
  return out;
}

/** gpus.memory */
export function memoryRule(f: ProcessFacts, limit: number, required: boolean): Finding {
  const expected = `<= ${limit} MiB per GPU`;
  const over = overLimit(f, limit);
  const evidence = [f.gpuEv, f.appsEv];
  if (over.length > 0)
    return finding('gpus.memory', MEMORY_TITLE, 'fail', {
      required,
      expected,
      found: over.join('; '),
      evidence,
      hint: 'Free the GPUs (another container, a leftover worker) or run nvidia-smi where it sees every process (--pid=host).',
    });
  const unreadGpus = f.inv.gpus.filter((g) => g.memoryUsedMiB === null).map((g) => `GPU${g.index}`);
  const unseen = unseenGpus(f.inv);
  const gaps = [
    ...(unreadGpus.length ? [`nvidia-smi gives no memory figure for ${unreadGpus.join(', ')}`] : []),
    ...(unseen ? [unseen] : []),
  ];
  if (gaps.length > 0)
    return finding('gpus.memory', MEMORY_TITLE, 'fail', {
      required,
      expected,
      found: `unknown: ${gaps.join('; ')}`,
      evidence: [f.gpuEv],
      hint: `Run ${WHERE_GPUS} on the host; memory.used must be a number, not [N/A].`,
    });
  return finding('gpus.memory', MEMORY_TITLE, 'pass', {
    required,
    expected,
    found: 'within the limit',
    evidence,
  });
}

const listOf = (ps: ComputeApp[]) =>
  ps.map((p) => `PID ${p.pid} (${p.processName || 'no name'}, ${p.usedMemoryMiB ?? '?'} MiB)`).join(', ');

/** The finding's status and sentence for a readable process listing. */
function judgeListing(
  f: ProcessFacts,
  listing: ProcessListing,
): { status: 'pass' | 'warn' | 'fail'; found: string } {
  const foreign = listing.apps.filter((p) => !f.tree?.has(p.pid));
  if (foreign.length > 0 && (f.tree || !f.serverRunning))
    return { status: 'fail', found: `foreign or leftover processes: ${listOf(foreign)}` };
  if (foreign.length > 0)
    return {
      status: 'warn',
      found: `${foreign.length} GPU process(es) listed but the server process is unknown, so they could not be told apart: ${listOf(foreign)}`,
    };
  if (listing.truncated)
    return { status: 'fail', found: `unknown: the process list is cut (${listing.truncated})` };
  const hidden =
    listing.apps.length === 0 ? f.inv.gpus.filter((g) => (g.memoryUsedMiB ?? 0) > IDLE_GPU_MIB) : [];
  const held = hidden.map((g) => `GPU${g.index} (${g.memoryUsedMiB} MiB)`).join(', ');
  if (hidden.length > 0 && !f.serverRunning)
    return {
      status: 'fail',
      found: `no process listed, yet memory is in use on ${held}: another container or namespace holds it`,
    };
  if (hidden.length > 0)
    return {
      status: 'warn',
      found: `no process listed, yet memory is in use on ${held}: unknown whether it is the server (nvidia-smi in a container lists no processes) or another container`,
    };
  if (listing.apps.length === 0 && f.inv.gpus.some((g) => g.memoryUsedMiB === null))
    return {
      status: 'warn',
      found: 'no process listed, and nvidia-smi gives no memory figure for some GPUs',
    };
  return { status: 'pass', found: "only the server's processes use the GPUs" };
}

/** gpus.processes */
export function processesRule(f: ProcessFacts, required: boolean): Finding {
  if (f.apps.kind !== 'value')
    return unread(
      'gpus.processes',
      PROCESSES_TITLE,
      required,
      undefined,
      f.apps,
      [f.gpuEv, f.appsEv],
      WHERE_APPS,
    );
  const { status, found } = judgeListing(f, f.apps.value);
  return finding('gpus.processes', PROCESSES_TITLE, status, {
    required: required && status === 'fail',
    found,
    evidence: [f.appsEv],
    hint:
      status === 'pass'
        ? undefined
        : 'Kill leftover workers from earlier runs (they hold GPU memory and skew results).',
  });
}

/** gpus.memory and gpus.processes, those the plan asks for. */
export function processRules(spec: GpuSpec, f: ProcessFacts): Finding[] {
  const out: Finding[] = [];
  if (spec.max_memory_used_mib !== undefined)
    out.push(memoryRule(f, spec.max_memory_used_mib, spec.required));
  if (spec.no_foreign_processes) out.push(processesRule(f, spec.required));
  return out;
}

/** gpus.memory and gpus.processes when the plan asks for them and the GPUs were not read. */
export function unreadProcessFacts(
  spec: GpuSpec | undefined,
  why: ReadResult<unknown>,
  ev: Evidence[],
): Finding[] {
  const required = spec?.required ?? true;
  const out: Finding[] = [];
  if (spec?.max_memory_used_mib !== undefined)
    out.push(
      unread(
        'gpus.memory',
        MEMORY_TITLE,
        required,
        `<= ${spec.max_memory_used_mib} MiB per GPU`,
        why,
        ev,
        WHERE_GPUS,
      ),
    );
  if (spec?.no_foreign_processes)
    out.push(unread('gpus.processes', PROCESSES_TITLE, required, undefined, why, ev, WHERE_GPUS));
  return out;
}
