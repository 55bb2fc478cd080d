// GPUs: inventory, memory in use not owned by the server, foreign processes on the GPUs, and the
// topology (NVLink or PCIe) — recorded even when not required. Skips when nvidia-smi is absent and
// the plan does not ask for GPUs.

import { processTree, readProcessTable } from '../../hosts/process-table.js';
import { type CheckContext, excerpt, finding } from '../context.js';
import type { Finding } from '../finding.js';
import {
  APPS_QUERY,
  GPU_QUERY,
  parseComputeAppsCsv,
  parseGpuCsv,
  parseTopology,
  TOPO_QUERY,
} from '../nvidia-smi.js';

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

export async function checkGpus(ctx: CheckContext): Promise<{ findings: Finding[]; topology: unknown }> {
  const spec = ctx.plan.gpus;
  const req = spec?.required ?? false;
  const g = await ctx.host.exec(GPU_QUERY, { timeoutMs: 30_000 });
  const cmd = GPU_QUERY.join(' ');
  if (g.code !== 0) {
    const missing = g.code === 127 || /not found/.test(g.stderr);
    const why = missing
      ? `nvidia-smi is not available on ${ctx.host.description}`
      : `nvidia-smi failed: ${excerpt(g.stderr || g.stdout)}`;
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
  const gpus = parseGpuCsv(g.stdout);
  const a = await ctx.host.exec(APPS_QUERY, { timeoutMs: 30_000 });
  const apps = a.code === 0 ? parseComputeAppsCsv(a.stdout) : [];
  const t = await ctx.host.exec(TOPO_QUERY, { timeoutMs: 30_000 });
  const topo = t.code === 0 ? parseTopology(t.stdout) : null;
  const out: Finding[] = [];
  const gpuEv = { source: 'command' as const, where: cmd, excerpt: excerpt(g.stdout, 600) };
  const topoEv = { source: 'command' as const, where: TOPO_QUERY.join(' '), excerpt: excerpt(t.stdout, 600) };
  const names = [...new Set(gpus.map((x) => x.name))].join(', ');
  out.push(
    finding('gpus.inventory', 'GPU inventory and topology', 'pass', {
      required: false,
      found: `${gpus.length} × ${names || 'unknown'}; topology ${topo?.kind ?? 'unknown'}`,
      evidence: [gpuEv, topoEv],
    }),
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
        found: bad.length === 0 ? names : bad.map((x) => `GPU${x.index}: ${x.name}`).join(', '),
        evidence: [gpuEv],
      }),
    );
  }
  const rows = ctx.server ? await readProcessTable(ctx.host).catch(() => null) : null;
  const tree = ctx.server && rows ? processTree(rows, ctx.server.pid) : null;
  const foreign = apps.filter((p) => !tree?.has(p.pid));
  const appsEv = {
    source: 'command' as const,
    where: APPS_QUERY.join(' '),
    excerpt: excerpt(a.stdout || '(no processes listed)', 600),
  };
  // memory in use that no listed process of the server accounts for
  const unexplained = gpus.map((x) => {
    const serverMiB = apps
      .filter((p) => p.gpuUuid === x.uuid && tree?.has(p.pid))
      .reduce((s, p) => s + (p.usedMemoryMiB ?? 0), 0);
    return { gpu: x, otherMiB: Math.max(0, (x.memoryUsedMiB ?? 0) - serverMiB) };
  });
  if (spec?.max_memory_used_mib !== undefined) {
    const limit = spec.max_memory_used_mib;
    const over = unexplained.filter((u) => u.otherMiB > limit);
    out.push(
      finding('gpus.memory', "GPU memory in use (not the server's)", over.length === 0 ? 'pass' : 'fail', {
        required: req,
        expected: `<= ${limit} MiB per GPU`,
        found:
          over.length === 0
            ? 'within the limit'
            : over.map((u) => `GPU${u.gpu.index}: ${u.otherMiB} MiB`).join(', '),
        evidence: [gpuEv, appsEv],
      }),
    );
  }
  if (spec?.no_foreign_processes) {
    const hidden = apps.length === 0 ? unexplained.filter((u) => u.otherMiB > 0) : [];
    let status: 'pass' | 'warn' | 'fail' = 'pass';
    let found = "only the server's processes use the GPUs";
    if (foreign.length > 0 && tree) {
      status = 'fail';
      found = `foreign or leftover processes: ${foreign.map((p) => `PID ${p.pid} (${p.processName}, ${p.usedMemoryMiB ?? '?'} MiB)`).join(', ')}`;
    } else if (foreign.length > 0) {
      status = 'warn';
      found = `${foreign.length} GPU process(es) listed but the server process is unknown, so they could not be told apart`;
    } else if (hidden.length > 0) {
      status = 'warn';
      found = `no process listed, yet memory is in use on ${hidden.map((u) => `GPU${u.gpu.index} (${u.otherMiB} MiB)`).join(', ')}: another container or namespace holds it`;
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
  if (spec?.topology) {
    out.push(
      finding('gpus.topology', 'GPU interconnect', topo?.kind === spec.topology ? 'pass' : 'fail', {
        required: req,
        expected: spec.topology,
        found: topo?.kind ?? 'unknown (nvidia-smi topo -m could not be parsed)',
        evidence: [topoEv],
      }),
    );
  }
  return { findings: out, topology: topo };
}
