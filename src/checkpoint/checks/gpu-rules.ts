// The GPU check's rules on the inventory and the topology, one small function each: what the host
// has (gpus.inventory), how many (gpus.count), which model (gpus.model), how they are linked
// (gpus.topology). A fact the output did not give (cut, a placeholder, unreadable) is unknown: a rule
// the plan asks for fails on it and says where the fact could be read.

import { describeNoValue, type ReadResult, readUnknown } from '../../core/read-result.js';
import type { GpuSpec } from '../../plan/schema.js';
import { finding } from '../context.js';
import type { Evidence, Finding } from '../finding.js';
import { GPU_QUERY, type GpuInventory, type GpuRow, TOPO_QUERY, type Topology } from '../nvidia-smi.js';
import type { Read } from './gpu-reads.js';

export const WHERE_GPUS = `\`${GPU_QUERY.join(' ')}\` or plain \`nvidia-smi\``;

/** A rule the plan asks for on a fact that was not read: fails (when required) and names the source. */
export function unread(
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

const nameOf = (g: GpuRow) => g.name ?? 'unknown name';

/** Why some GPUs of the host are not in the output (it was cut, or shows fewer than it counts), or null. */
export function unseenGpus(inv: GpuInventory): string | null {
  if (inv.count === null) return `the output is cut: ${inv.truncated ?? 'more GPUs may follow'}`;
  if (inv.gpus.length < inv.count)
    return `${inv.count - inv.gpus.length} of ${inv.count} GPUs are not shown (${inv.truncated ?? 'cut'})`;
  return null;
}

/** `8 × NVIDIA L40S`, or `at least 2 × …` when the output was cut. */
function countPhrase(inv: GpuInventory): string {
  const names = [...new Set(inv.gpus.map(nameOf))].join(', ');
  return inv.count !== null ? `${inv.count} × ${names}` : `at least ${inv.gpus.length} × ${names}`;
}

/** gpus.inventory: recorded whether or not the plan asks about GPUs. */
export function inventoryRule(
  inv: Read<GpuInventory>,
  topo: Read<Topology>,
  spec: GpuSpec | undefined,
  hostDescription: string,
): Finding {
  const title = 'GPU inventory and topology';
  const required = spec?.required ?? false;
  const topoKind = topo.result.kind === 'value' ? topo.result.value.kind : 'unknown';
  const evidence = [inv.ev, topo.ev];
  if (inv.result.kind !== 'value')
    return finding('gpus.inventory', title, spec ? 'fail' : 'warn', {
      required,
      found: `GPUs ${describeNoValue(inv.result)}; topology ${topoKind}`,
      evidence,
      hint: `Run ${WHERE_GPUS} on ${hostDescription} and check that it lists the GPUs.`,
    });
  const v = inv.result.value;
  if (v.gpus.length === 0)
    return finding('gpus.inventory', title, spec ? 'fail' : 'warn', {
      required,
      found: 'nvidia-smi lists no GPUs',
      evidence,
    });
  const versions = [
    v.driverVersion ? `driver ${v.driverVersion}` : '',
    v.cudaVersion ? `CUDA ${v.cudaVersion}` : '',
  ].filter(Boolean);
  const found = [
    countPhrase(v),
    `topology ${topoKind}`,
    ...(versions.length ? [versions.join(', ')] : []),
    ...(v.truncated ? [`the output is cut: ${v.truncated}`] : []),
  ].join('; ');
  return finding('gpus.inventory', title, v.truncated ? 'warn' : 'pass', {
    required: false,
    found,
    evidence,
  });
}

/** gpus.count: the number of GPUs, unknown when the output was cut before it could say. */
export function countRule(inv: GpuInventory, want: number, required: boolean, ev: Evidence): Finding {
  if (inv.count === null)
    return finding('gpus.count', 'GPU count', 'fail', {
      required,
      expected: String(want),
      found: `unknown (truncated): ${inv.truncated ?? 'the output is cut'}; ${inv.gpus.length} GPUs seen`,
      evidence: [ev],
      hint: `Run ${WHERE_GPUS} on the host and give its whole output.`,
    });
  return finding('gpus.count', 'GPU count', inv.count === want ? 'pass' : 'fail', {
    required,
    expected: String(want),
    found: String(inv.count),
    evidence: [ev],
  });
}

/** True when the name matches the plan's substring or /regex/; a regex that does not compile matches nothing. */
export function nameMatches(pattern: string, name: string): boolean {
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

/** gpus.model: every GPU's name matches; a name nvidia-smi cut or did not give is unknown. */
export function modelRule(inv: GpuInventory, model: string, required: boolean, ev: Evidence): Finding {
  const wrong = inv.gpus.filter((g) => g.name !== null && !g.nameCut && !nameMatches(model, g.name));
  const unknown = inv.gpus.filter(
    (g) => g.name === null || (g.nameCut && !nameMatches(model, g.name.replace(/\.\.\.$/, ''))),
  );
  const base = { required, expected: model, evidence: [ev] };
  const unseen = unseenGpus(inv);
  if (wrong.length > 0)
    return finding('gpus.model', 'GPU model', 'fail', {
      ...base,
      found: wrong.map((g) => `GPU${g.index}: ${g.name}`).join(', '),
    });
  const gaps = [
    ...unknown.map((g) => `GPU${g.index}'s name is ${g.name === null ? 'not given' : `cut (${g.name})`}`),
    ...(unseen ? [unseen] : []),
    ...(inv.gpus.length === 0 ? ['no GPUs listed'] : []),
  ];
  if (gaps.length > 0)
    return finding('gpus.model', 'GPU model', 'fail', {
      ...base,
      found: `unknown: ${gaps.join('; ')}`,
      hint: `Run \`nvidia-smi --query-gpu=index,name --format=csv\` on the host for the full names.`,
    });
  return finding('gpus.model', 'GPU model', 'pass', {
    ...base,
    found: [...new Set(inv.gpus.map(nameOf))].join(', '),
  });
}

/** gpus.topology: NVLink or PCIe between every pair, as `topo -m` shows. */
export function topologyRule(topo: Read<Topology>, want: 'nvlink' | 'pcie', required: boolean): Finding {
  if (topo.result.kind !== 'value')
    return unread(
      'gpus.topology',
      'GPU interconnect',
      required,
      want,
      topo.result,
      [topo.ev],
      `\`${TOPO_QUERY.join(' ')}\``,
    );
  const { kind, truncated } = topo.result.value;
  // a cut matrix whose links seen so far are all of one kind: the pairs it hid decide
  if (kind === 'unknown') {
    const why = readUnknown(truncated ?? 'cut');
    return unread(
      'gpus.topology',
      'GPU interconnect',
      required,
      want,
      why,
      [topo.ev],
      `\`${TOPO_QUERY.join(' ')}\``,
    );
  }
  return finding('gpus.topology', 'GPU interconnect', kind === want ? 'pass' : 'fail', {
    required,
    expected: want,
    found: truncated ? `${kind} (by the links shown; ${truncated})` : kind,
    evidence: [topo.ev],
  });
}
