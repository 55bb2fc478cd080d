// GPUs: inventory, memory in use not owned by the server, foreign processes on the GPUs, and the
// topology (NVLink or PCIe) — recorded even when not required. Skips when nvidia-smi is absent and
// the plan does not ask for GPUs. A fact nvidia-smi's output did not give is unknown, never a pass:
// a check the plan asks for fails on it and says where the fact could be read.

import { describeNoValue, type ReadResult } from '../../core/read-result.js';
import { processTree, readProcessTable } from '../../hosts/process-table.js';
import { type CheckContext, excerpt, finding } from '../context.js';
import type { Evidence, Finding } from '../finding.js';
import {
  APPS_QUERY,
  appOnGpu,
  type ComputeApp,
  GPU_QUERY,
  type GpuInventory,
  readComputeApps,
  readGpus,
  readTopology,
  TABLE_QUERY,
  TOPO_QUERY,
  type Topology,
} from '../nvidia-smi.js';

const NVSMI_TIMEOUT_MS = 30_000;
const MEMORY_TITLE = "GPU memory in use (not the server's)";

function nameMatches(pattern: string, name: string): boolean {
  const m = /^\/(.*)\/([a-z]*)$/.exec(pattern);
  if (m) {
    try {
      return new RegExp(m[1], m[2]).test(name);
    } catch {
      return false;
    }
  }
  return name.toLowerCase().includes(pattern.toLowerCase());
}

interface Read<T> {
  result: ReadResult<T>;
  ev: Evidence;
}

async function run(ctx: CheckContext, argv: string[]) {
  const r = await ctx.host.exec(argv, { timeoutMs: NVSMI_TIMEOUT_MS });
  const where = argv.join(' ');
  const ev: Evidence = { source: 'command', where, excerpt: excerpt(r.stdout || r.stderr, 600) };
  return { r, ev };
}

function withExit<T>(code: number | null, result: ReadResult<T>): ReadResult<T> {
  if (code === 0 || result.kind !== 'unreadable') return result;
  return { ...result, reason: `exit status ${code}; ${result.reason}` };
}

/** The inventory from the CSV query, else from the default table (whose text also lists the processes). */
async function readInventory(
  ctx: CheckContext,
  first: Awaited<ReturnType<typeof run>>,
): Promise<Read<GpuInventory> & { tableText: string | null }> {
  const csv = withExit(first.r.code, readGpus(first.r.stdout));
  if (csv.kind === 'value')
    return { result: csv, ev: first.ev, tableText: csv.value.shape === 'table' ? first.r.stdout : null };
  const table = await run(ctx, TABLE_QUERY);
  const t = withExit(table.r.code, readGpus(table.r.stdout));
  return t.kind === 'value'
    ? { result: t, ev: table.ev, tableText: table.r.stdout }
    : { result: csv, ev: first.ev, tableText: null };
}

async function readApps(
  ctx: CheckContext,
  tableText: string | null,
  tableEv: Evidence,
): Promise<Read<ComputeApp[]>> {
  if (tableText !== null) return { result: readComputeApps(tableText), ev: tableEv };
  const a = await run(ctx, APPS_QUERY);
  const result = withExit(a.r.code, readComputeApps(a.r.stdout, { emptyMeansNone: a.r.code === 0 }));
  return { result, ev: { ...a.ev, excerpt: a.ev.excerpt || '(no processes listed)' } };
}

const WHERE_GPUS = `\`${GPU_QUERY.join(' ')}\` or plain \`nvidia-smi\``;

/** A check the plan asks for on a fact that was not read: fails (when required) and names the source. */
function unread(
  id: string,
  title: string,
  required: boolean,
  expected: string | undefined,
  why: ReadResult<unknown>,
  ev: Evidence[],
  where: string,
): Finding {
  return finding(id, title, 'fail', {
    required,
    expected,
    found: describeNoValue(why),
    evidence: ev,
    hint: `Run ${where} on the host and check that it prints readable output.`,
  });
}

export async function checkGpus(ctx: CheckContext): Promise<{ findings: Finding[]; topology: unknown }> {
  const spec = ctx.plan.gpus;
  const req = spec?.required ?? false;
  const first = await run(ctx, GPU_QUERY);
  const cmd = GPU_QUERY.join(' ');
  const g = first.r;
  if (
    g.code === 127 ||
    (g.code !== 0 && /not found|No such file/i.test(g.stderr) && g.stdout.trim() === '')
  ) {
    const why = `nvidia-smi is not available on ${ctx.host.description}`;
    return {
      findings: [
        spec
          ? finding('gpus', 'GPUs', 'fail', {
              required: req,
              expected: 'nvidia-smi lists the GPUs',
              found: why,
              evidence: [{ source: 'command', where: cmd, excerpt: excerpt(g.stderr) }],
            })
          : finding('gpus', 'GPUs', 'skip', {
              required: false,
              found: `${why}; gpus are not required by the plan`,
            }),
      ],
      topology: null,
    };
  }
  const inv = await readInventory(ctx, first);
  const t = await run(ctx, TOPO_QUERY);
  const topo = withExit(t.r.code, readTopology(t.r.stdout));
  const topoKind = topo.kind === 'value' ? topo.value.kind : null;
  const topoEv = t.ev;
  const out: Finding[] = [];

  if (inv.result.kind !== 'value') {
    const found = `GPUs ${describeNoValue(inv.result)}; topology ${topoKind ?? 'unknown'}`;
    out.push(
      finding('gpus.inventory', 'GPU inventory and topology', spec ? 'fail' : 'warn', {
        required: req,
        found,
        evidence: [inv.ev, topoEv],
        hint: `Run ${WHERE_GPUS} on ${ctx.host.description} and check that it lists the GPUs.`,
      }),
    );
    const ev = [inv.ev];
    if (spec?.count !== undefined)
      out.push(unread('gpus.count', 'GPU count', req, String(spec.count), inv.result, ev, WHERE_GPUS));
    if (spec?.model) out.push(unread('gpus.model', 'GPU model', req, spec.model, inv.result, ev, WHERE_GPUS));
    out.push(...unreadProcessFacts(spec, req, inv.result, ev, WHERE_GPUS));
    pushTopology(out, spec?.topology, req, topo, topoEv);
    return { findings: out, topology: topo.kind === 'value' ? topo.value : null };
  }

  const { gpus } = inv.result.value;
  const gpuEv = inv.ev;
  const names = [...new Set(gpus.map((x) => x.name))].join(', ');
  const versions = [
    inv.result.value.driverVersion ? `driver ${inv.result.value.driverVersion}` : '',
    inv.result.value.cudaVersion ? `CUDA ${inv.result.value.cudaVersion}` : '',
  ].filter(Boolean);
  out.push(
    finding(
      'gpus.inventory',
      'GPU inventory and topology',
      gpus.length > 0 ? 'pass' : spec ? 'fail' : 'warn',
      {
        required: gpus.length > 0 ? false : req,
        found:
          gpus.length > 0
            ? `${gpus.length} × ${names}; topology ${topoKind ?? 'unknown'}${versions.length ? `; ${versions.join(', ')}` : ''}`
            : 'nvidia-smi lists no GPUs',
        evidence: [gpuEv, topoEv],
      },
    ),
  );
  if (spec?.count !== undefined) {
    out.push(
      finding('gpus.count', 'GPU count', gpus.length === spec.count ? 'pass' : 'fail', {
        required: req,
        expected: String(spec.count),
        found: String(gpus.length),
        evidence: [gpuEv],
      }),
    );
  }
  if (spec?.model) {
    const bad = gpus.filter((x) => !nameMatches(spec.model as string, x.name));
    out.push(
      finding('gpus.model', 'GPU model', bad.length === 0 && gpus.length > 0 ? 'pass' : 'fail', {
        required: req,
        expected: spec.model,
        found: bad.length === 0 ? names || 'no GPUs' : bad.map((x) => `GPU${x.index}: ${x.name}`).join(', '),
        evidence: [gpuEv],
      }),
    );
  }
  if (spec?.max_memory_used_mib !== undefined || spec?.no_foreign_processes) {
    const apps = await readApps(ctx, inv.tableText, inv.ev);
    const rows = ctx.server ? await readProcessTable(ctx.host).catch(() => null) : null;
    const tree = ctx.server && rows ? processTree(rows, ctx.server.pid) : null;
    out.push(...judgeProcesses(ctx, spec, req, gpus, apps, tree, gpuEv));
  }
  pushTopology(out, spec?.topology, req, topo, topoEv);
  return { findings: out, topology: topo.kind === 'value' ? topo.value : null };
}

function pushTopology(
  out: Finding[],
  want: 'nvlink' | 'pcie' | undefined,
  req: boolean,
  topo: ReadResult<Topology>,
  ev: Evidence,
): void {
  if (!want) return;
  if (topo.kind !== 'value') {
    out.push(
      unread('gpus.topology', 'GPU interconnect', req, want, topo, [ev], `\`${TOPO_QUERY.join(' ')}\``),
    );
    return;
  }
  out.push(
    finding('gpus.topology', 'GPU interconnect', topo.value.kind === want ? 'pass' : 'fail', {
      required: req,
      expected: want,
      found: topo.value.kind,
      evidence: [ev],
    }),
  );
}

/** gpus.memory and gpus.processes, when the plan asks for them and their inputs were not read. */
function unreadProcessFacts(
  spec: GpuSpec | undefined,
  req: boolean,
  why: ReadResult<unknown>,
  ev: Evidence[],
  where: string,
): Finding[] {
  const out: Finding[] = [];
  if (spec?.max_memory_used_mib !== undefined)
    out.push(
      unread('gpus.memory', MEMORY_TITLE, req, `<= ${spec.max_memory_used_mib} MiB per GPU`, why, ev, where),
    );
  if (spec?.no_foreign_processes)
    out.push(unread('gpus.processes', 'No foreign processes on the GPUs', req, undefined, why, ev, where));
  return out;
}

type GpuSpec = NonNullable<CheckContext['plan']['gpus']>;

function judgeProcesses(
  ctx: CheckContext,
  spec: GpuSpec | undefined,
  req: boolean,
  gpus: GpuInventory['gpus'],
  appsRead: Read<ComputeApp[]>,
  tree: Set<number> | null,
  gpuEv: Evidence,
): Finding[] {
  const out: Finding[] = [];
  const appsEv = appsRead.ev;
  const where = `\`${APPS_QUERY.join(' ')}\``;
  if (appsRead.result.kind !== 'value') {
    out.push(...unreadProcessFacts(spec, req, appsRead.result, [gpuEv, appsEv], where));
    return out;
  }
  const apps = appsRead.result.value;
  const serverRunning = ctx.reachable || ctx.server !== null;
  // Memory can be attributed when no server runs (all of it is foreign), or when the server's
  // processes are known and nvidia-smi lists processes. In a container nvidia-smi lists none (its PID
  // namespace hides them): then the server's own memory cannot be told from anyone else's.
  const attribution: string | null = !serverRunning
    ? null
    : apps.length === 0
      ? "nvidia-smi lists no processes (as in a container, whose PID namespace hides them), so the server's own memory cannot be told from anyone else's"
      : !tree
        ? "the server process is unknown, so its GPU memory cannot be told from anyone else's"
        : null;
  const other = gpus.map((x) => {
    const serverMiB = apps
      .filter((p) => appOnGpu(p, x) && tree?.has(p.pid))
      .reduce((s, p) => s + (p.usedMemoryMiB ?? 0), 0);
    return {
      gpu: x,
      usedMiB: x.memoryUsedMiB,
      otherMiB: x.memoryUsedMiB === null ? null : Math.max(0, x.memoryUsedMiB - serverMiB),
    };
  });
  if (spec?.max_memory_used_mib !== undefined) {
    const limit = spec.max_memory_used_mib;
    const title = MEMORY_TITLE;
    const expected = `<= ${limit} MiB per GPU`;
    const unreadMem = other.filter((u) => u.usedMiB === null);
    const overTotal = other.filter((u) => u.usedMiB !== null && u.usedMiB > limit);
    if (unreadMem.length > 0 && overTotal.length === 0) {
      out.push(
        finding('gpus.memory', title, 'fail', {
          required: req,
          expected,
          found: `unknown: nvidia-smi gives no memory figure for ${unreadMem.map((u) => `GPU${u.gpu.index}`).join(', ')}`,
          evidence: [gpuEv],
          hint: `Run ${WHERE_GPUS} on the host; memory.used must be a number, not [N/A].`,
        }),
      );
    } else if (attribution && overTotal.length > 0) {
      out.push(
        finding('gpus.memory', title, 'warn', {
          required: false,
          expected,
          found: `unknown: ${overTotal.map((u) => `GPU${u.gpu.index} uses ${u.usedMiB} MiB`).join(', ')} in all, but ${attribution}`,
          evidence: [gpuEv, appsEv],
          hint: 'Run nvidia-smi in the host PID namespace (or with --pid=host) to attribute GPU memory.',
        }),
      );
    } else {
      const over = other.filter((u) => u.otherMiB !== null && u.otherMiB > limit);
      out.push(
        finding('gpus.memory', title, over.length === 0 ? 'pass' : 'fail', {
          required: req,
          expected,
          found:
            over.length === 0
              ? 'within the limit'
              : over.map((u) => `GPU${u.gpu.index}: ${u.otherMiB} MiB`).join(', '),
          evidence: [gpuEv, appsEv],
        }),
      );
    }
  }
  if (spec?.no_foreign_processes) {
    const foreign = apps.filter((p) => !tree?.has(p.pid));
    const hidden = apps.length === 0 ? other.filter((u) => (u.usedMiB ?? 0) > 0) : [];
    let status: 'pass' | 'warn' | 'fail' = 'pass';
    let found = "only the server's processes use the GPUs";
    const list = (ps: ComputeApp[]) =>
      ps.map((p) => `PID ${p.pid} (${p.processName}, ${p.usedMemoryMiB ?? '?'} MiB)`).join(', ');
    if (foreign.length > 0 && (tree || !serverRunning)) {
      status = 'fail';
      found = `foreign or leftover processes: ${list(foreign)}`;
    } else if (foreign.length > 0) {
      status = 'warn';
      found = `${foreign.length} GPU process(es) listed but the server process is unknown, so they could not be told apart: ${list(foreign)}`;
    } else if (hidden.length > 0) {
      status = 'warn';
      found = `no process listed, yet memory is in use on ${hidden.map((u) => `GPU${u.gpu.index} (${u.usedMiB} MiB)`).join(', ')}: ${serverRunning ? 'unknown whether it is the server (nvidia-smi in a container lists no processes) or another container' : 'another container or namespace holds it'}`;
    } else if (apps.length === 0 && other.some((u) => u.usedMiB === null)) {
      status = 'warn';
      found = 'no process listed, and nvidia-smi gives no memory figure for some GPUs';
    }
    out.push(
      finding('gpus.processes', 'No foreign processes on the GPUs', status, {
        required: req && status === 'fail',
        found,
        evidence: [appsEv],
        hint:
          status === 'pass'
            ? undefined
            : 'Kill leftover workers from earlier runs (they hold GPU memory and skew results).',
      }),
    );
  }
  return out;
}
