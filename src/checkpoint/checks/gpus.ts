// GPUs: inventory, memory in use not owned by the server, foreign processes on the GPUs, and the
// topology (NVLink or PCIe) — recorded even when not required. Skips when nvidia-smi is absent and
// the plan does not ask for GPUs. This file reads and applies the rules in order; the rules live in
// gpu-rules.ts (inventory, count, model, topology) and gpu-process-rules.ts (memory, processes).

import { type CheckContext, excerpt, finding } from '../context.js';
import type { Finding } from '../finding.js';
import { GPU_QUERY } from '../nvidia-smi.js';
import { type ProcessFacts, processRules, unreadProcessFacts } from './gpu-process-rules.js';
import {
  isAbsent,
  type Ran,
  readApps,
  readInventory,
  readTopo,
  runNvidiaSmi,
  serverTree,
} from './gpu-reads.js';
import { countRule, inventoryRule, modelRule, topologyRule, unread, WHERE_GPUS } from './gpu-rules.js';

/** The one finding when nvidia-smi is not on the host: a failure when the plan asks for GPUs, else a skip. */
function absentFinding(ctx: CheckContext, first: Ran): Finding {
  const why = `nvidia-smi is not available on ${ctx.host.description}`;
  const spec = ctx.plan.gpus;
  if (!spec)
    return finding('gpus', 'GPUs', 'skip', {
      required: false,
      found: `${why}; gpus are not required by the plan`,
    });
  return finding('gpus', 'GPUs', 'fail', {
    required: spec.required,
    expected: 'nvidia-smi lists the GPUs',
    found: why,
    evidence: [{ source: 'command', where: GPU_QUERY.join(' '), excerpt: excerpt(first.stderr) }],
  });
}

export async function checkGpus(ctx: CheckContext): Promise<{ findings: Finding[]; topology: unknown }> {
  const spec = ctx.plan.gpus;
  const required = spec?.required ?? false;
  const first = await runNvidiaSmi(ctx, GPU_QUERY);
  if (isAbsent(first)) return { findings: [absentFinding(ctx, first)], topology: null };
  const inv = await readInventory(ctx, first);
  const topo = await readTopo(ctx);
  const out: Finding[] = [inventoryRule(inv, topo, spec, ctx.host.description)];
  const topology = topo.result.kind === 'value' ? topo.result.value : null;
  if (inv.result.kind !== 'value') {
    const ev = [inv.ev];
    if (spec?.count !== undefined)
      out.push(unread('gpus.count', 'GPU count', required, String(spec.count), inv.result, ev, WHERE_GPUS));
    if (spec?.model)
      out.push(unread('gpus.model', 'GPU model', required, spec.model, inv.result, ev, WHERE_GPUS));
    out.push(...unreadProcessFacts(spec, inv.result, ev));
    if (spec?.topology) out.push(topologyRule(topo, spec.topology, required));
    return { findings: out, topology };
  }
  const v = inv.result.value;
  if (spec?.count !== undefined) out.push(countRule(v, spec.count, required, inv.ev));
  if (spec?.model) out.push(modelRule(v, spec.model, required, inv.ev));
  if (spec && (spec.max_memory_used_mib !== undefined || spec.no_foreign_processes)) {
    const apps = await readApps(ctx, inv);
    const facts: ProcessFacts = {
      inv: v,
      apps: apps.result,
      tree: await serverTree(ctx),
      serverRunning: ctx.reachable || ctx.server !== null,
      gpuEv: inv.ev,
      appsEv: apps.ev,
    };
    out.push(...processRules(spec, facts));
  }
  if (spec?.topology) out.push(topologyRule(topo, spec.topology, required));
  return { findings: out, topology };
}
