// `nvidia-smi -q -x`: the same facts as `-q` as XML (`<nvidia_smi_log>`, `<attached_gpus>`, one `<gpu
// id="00000000:29:00.0">` element per GPU with `<product_name>`, `<uuid>`, `<fb_memory_usage>`,
// `<utilization>`, `<mig_mode>` and `<processes>`). Read element by element, so a paste cut anywhere
// keeps what came before the cut: the count is stated up front, and a value is read only from an element
// closed on its line (`<vbios_version>9` cut mid-value is not read).

import { type ReadResult, readUnknown, readUnreadable, readValue } from '../../core/read-result.js';
import { isBusId, isInt, isPlaceholder, MAX_LINE_CHARS, quantity } from './text.js';
import { type ComputeApp, type GpuInventory, type GpuRow, gpuRow, type ProcessListing } from './types.js';

/** True when the text is `nvidia-smi -q -x` output. */
export function looksLikeXml(lines: string[]): boolean {
  return lines.slice(0, 40).some((l) => l.length < 400 && /<nvidia_smi_log>/.test(l));
}

/** One element closed on its line, with the open elements it sits in (`fb_memory_usage/used`). */
interface Leaf {
  path: string;
  value: string;
}

interface XmlGpu {
  id: string;
  leaves: Leaf[];
  closed: boolean;
}

/** The document's leaves outside any GPU, and each GPU's leaves; `closed` when `</nvidia_smi_log>` ends it. */
function parse(lines: string[]): { head: Leaf[]; gpus: XmlGpu[]; closed: boolean } {
  const head: Leaf[] = [];
  const gpus: XmlGpu[] = [];
  const open: string[] = [];
  let closed = false;
  for (const raw of lines) {
    const line = raw.length > MAX_LINE_CHARS ? '' : raw.trim();
    const gpu = /^<gpu id="([^"]+)">$/.exec(line);
    if (gpu) gpus.push({ id: gpu[1], leaves: [], closed: false });
    const leaf = /^<(\w+)>([^<]*)<\/\1>$/.exec(line);
    const start = /^<(\w+)(?: [^>]*)?>$/.exec(line);
    const end = /^<\/(\w+)>$/.exec(line);
    if (leaf) {
      const target = gpus.length > 0 && open.includes('gpu') ? gpus[gpus.length - 1].leaves : head;
      target.push({
        path: [...open.filter((t) => t !== 'nvidia_smi_log' && t !== 'gpu'), leaf[1]].join('/'),
        value: leaf[2].trim(),
      });
    } else if (start) open.push(start[1]);
    else if (end) {
      if (end[1] === 'gpu' && gpus.length > 0) gpus[gpus.length - 1].closed = true;
      if (end[1] === 'nvidia_smi_log') closed = true;
      const at = open.lastIndexOf(end[1]);
      if (at >= 0) open.length = at;
    }
  }
  return { head, gpus, closed };
}

const leafValue = (leaves: Leaf[], path: string): string | null => {
  const v = leaves.find((l) => l.path === path)?.value ?? null;
  return v === null || isPlaceholder(v) ? null : v;
};
const amount = (v: string | null): number | null => (v === null ? null : (quantity(v) ?? null));

function gpuOf(g: XmlGpu, index: number): GpuRow {
  const mig = leafValue(g.leaves, 'mig_mode/current_mig');
  return gpuRow(index, {
    name: leafValue(g.leaves, 'product_name'),
    uuid: leafValue(g.leaves, 'uuid'),
    busId: isBusId(g.id) ? g.id : null,
    memoryUsedMiB: amount(leafValue(g.leaves, 'fb_memory_usage/used')),
    memoryTotalMiB: amount(leafValue(g.leaves, 'fb_memory_usage/total')),
    utilizationPct: amount(leafValue(g.leaves, 'utilization/gpu_util')),
    migEnabled: mig === 'Enabled' ? true : mig === 'Disabled' ? false : null,
  });
}

export function readXmlGpus(lines: string[], text: string): ReadResult<GpuInventory> {
  const { head, gpus, closed } = parse(lines);
  const attached = leafValue(head, 'attached_gpus');
  const count = attached !== null && isInt(attached) ? Number(attached) : null;
  if (gpus.length === 0 && count !== 0)
    return readUnreadable('nvidia-smi -q -x output with no <gpu> element', text);
  const truncated =
    count === null
      ? 'the output is cut before <attached_gpus>'
      : gpus.length < count
        ? `${count} GPUs attached but ${gpus.length} shown (cut short, or one GPU selected with -i)`
        : closed
          ? null
          : `the output is cut inside the element of GPU ${gpus[gpus.length - 1]?.id ?? '?'}`;
  return readValue({
    gpus: gpus.map(gpuOf),
    count,
    truncated,
    driverVersion: leafValue(head, 'driver_version'),
    cudaVersion: leafValue(head, 'cuda_version'),
    shape: 'query',
    migDevices: [],
  });
}

/** The `<process_info>` entries of every GPU; unknown when a GPU element was cut before its processes. */
export function readXmlProcesses(lines: string[]): ReadResult<ProcessListing> {
  const { gpus } = parse(lines);
  if (gpus.length === 0 || !gpus.every((g) => g.closed))
    return readUnknown('the nvidia-smi -q -x output is cut before the processes of every GPU');
  const apps: ComputeApp[] = [];
  for (const g of gpus) {
    const pids = g.leaves.filter((l) => l.path === 'processes/process_info/pid');
    const names = g.leaves.filter((l) => l.path === 'processes/process_info/process_name');
    const memory = g.leaves.filter((l) => l.path === 'processes/process_info/used_memory');
    pids.forEach((p, i) => {
      if (!isInt(p.value)) return;
      apps.push({
        pid: Number(p.value),
        gpuUuid: leafValue(g.leaves, 'uuid'),
        gpuIndex: null,
        gpuBusId: g.id,
        usedMemoryMiB: amount(memory[i]?.value ?? null),
        processName: names[i]?.value ?? '',
        type: null,
      });
    });
  }
  return readValue({ apps, truncated: null });
}
