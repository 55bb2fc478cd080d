// Parsers for the three nvidia-smi outputs the GPU check reads, in the formats nvidia-smi prints:
// `--query-gpu=... --format=csv,noheader,nounits`, `--query-compute-apps=...` and `topo -m`.

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

export interface GpuRow {
  index: number;
  name: string;
  uuid: string;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
}

export interface ComputeApp {
  pid: number;
  gpuUuid: string;
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

const num = (s: string | undefined): number | null => {
  const n = Number((s ?? '').trim());
  return (s ?? '').trim() !== '' && Number.isFinite(n) ? n : null;
};

function csvRows(text: string): string[][] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^No running/i.test(l))
    .map((l) => l.split(',').map((c) => c.trim()));
}

export function parseGpuCsv(text: string): GpuRow[] {
  return csvRows(text)
    .filter((c) => c.length >= 5 && num(c[0]) !== null)
    .map((c) => ({
      index: num(c[0]) as number,
      // a name never has commas in practice, but join the middle defensively
      name: c.slice(1, c.length - 3).join(','),
      uuid: c[c.length - 3],
      memoryUsedMiB: num(c[c.length - 2]),
      memoryTotalMiB: num(c[c.length - 1]),
    }));
}

export function parseComputeAppsCsv(text: string): ComputeApp[] {
  return csvRows(text)
    .filter((c) => c.length >= 4 && num(c[0]) !== null)
    .map((c) => ({
      pid: num(c[0]) as number,
      gpuUuid: c[1],
      usedMemoryMiB: num(c[2]),
      processName: c.slice(3).join(','),
    }));
}

const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

export function parseTopology(text: string): Topology | null {
  const lines = stripAnsi(text).split(/\r?\n/);
  const headIdx = lines.findIndex((l) => /^\s+GPU0\b/.test(l));
  if (headIdx < 0) return null;
  const header = lines[headIdx].split('\t').map((c) => c.trim());
  const gpuCols = header.map((c, i) => ({ c, i })).filter((x) => /^GPU\d+$/.test(x.c));
  const gpus = gpuCols.map((x) => x.c);
  const links: string[][] = [];
  for (const line of lines.slice(headIdx + 1)) {
    const cells = line.split('\t').map((c) => c.trim());
    if (!/^GPU\d+$/.test(cells[0] ?? '')) continue;
    links.push(gpuCols.map((x) => cells[x.i] ?? ''));
  }
  if (links.length !== gpus.length) return null;
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
  return { gpus, links, kind };
}
