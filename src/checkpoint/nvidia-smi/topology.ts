// `nvidia-smi topo -m`: the link matrix between GPUs (and NICs), aligned with tabs or spaces, bold and
// underline escapes or none, under a label such as "NVIDIA Topology:" when an environment report
// prints it, followed by CPU / NUMA affinity columns and the NIC legend. A matrix the text ends inside
// keeps the links it showed (its rows, and by symmetry their columns) and says where it was cut.

import { type ReadResult, readUnknown, readUnreadable, readValue } from '../../core/read-result.js';
import { failureOf, linesOf, MAX_LINE_CHARS } from './text.js';
import type { Topology } from './types.js';

const LINK = /^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$/;

interface Header {
  words: string[];
  /** Device columns (GPU#, NIC#, or NIC names such as mlx5_0 in older drivers). */
  devices: number;
  gpuCols: number[];
  nicCols: number[];
  /** The affinity columns after the devices, in order. */
  affinity: ('cpu' | 'numa' | 'gpu-numa')[];
}

function headerOf(words: string[]): Header {
  let devices = 0;
  while (devices < words.length && words[devices] !== 'CPU' && words[devices] !== 'NUMA') devices++;
  const rest = words.slice(devices).join(' ');
  const affinity = [...rest.matchAll(/GPU NUMA ID|CPU Affinity|NUMA Affinity/g)].map((m) =>
    m[0] === 'CPU Affinity' ? 'cpu' : m[0] === 'NUMA Affinity' ? 'numa' : 'gpu-numa',
  ) as Header['affinity'];
  const cols = words.slice(0, devices).map((c, i) => ({ c, i }));
  const gpuCols = cols.filter(({ c }) => /^GPU\d+$/.test(c)).map(({ i }) => i);
  const nicCols = cols.filter(({ c }) => !/^GPU\d+$/.test(c)).map(({ i }) => i);
  return { words, devices, gpuCols, nicCols, affinity };
}

/** The kind of the links shown; unknown when a hidden pair could still change it. */
const kindOf = (links: (string | null)[][]): Topology['kind'] => {
  let nv = 0;
  let other = 0;
  let hidden = 0;
  links.forEach((row, i) => {
    row.forEach((cell, j) => {
      if (i === j) return;
      if (cell === null) hidden++;
      else if (/^NV\d+$/.test(cell)) nv++;
      else other++;
    });
  });
  if (links.length < 2) return 'single';
  if (nv > 0 && other > 0) return 'mixed';
  if (hidden > 0) return 'unknown';
  return other === 0 ? 'nvlink' : 'pcie';
};

/** `NIC0: mlx5_0` lines of the NIC legend, by column name. */
function nicLegend(rows: string[][]): Map<string, string> {
  const names = new Map<string, string>();
  for (const w of rows) if (w.length === 2 && /^NIC\d+:$/.test(w[0])) names.set(w[0].slice(0, -1), w[1]);
  return names;
}

interface Matrix {
  links: (string | null)[][];
  nicLinks: (string | null)[][];
  cpuAffinity: (string | null)[];
  numaAffinity: (string | null)[];
}

/** One GPU row's cells into the matrix (a cut row: the cells before its last, which may itself be cut). */
function addRow(m: Matrix, head: Header, gpu: number, w: string[], cut: boolean): void {
  const cells = w.slice(1, 1 + head.devices);
  const seen = cut ? cells.slice(0, -1) : cells;
  head.gpuCols.forEach((col, j) => {
    const cell = seen[col] ?? null;
    if (cell === null) return;
    m.links[gpu][j] = cell;
    m.links[j][gpu] ??= cell;
  });
  m.nicLinks[gpu] = head.nicCols.map((col) => seen[col] ?? null);
  if (cut) return;
  const extra = w.slice(1 + head.devices);
  const at = (k: Header['affinity'][number]) => {
    const v = extra[head.affinity.indexOf(k)];
    return v === undefined || v === 'N/A' || head.affinity.indexOf(k) < 0 ? null : v;
  };
  m.cpuAffinity[gpu] = at('cpu');
  m.numaAffinity[gpu] = at('numa');
}

/** The GPU link matrix of `nvidia-smi topo -m`. */
export function readTopology(text: string): ReadResult<Topology> {
  const l = linesOf(text);
  if ('bad' in l) return readUnreadable(l.bad, text);
  const failed = failureOf(l.lines);
  if (failed) return readUnreadable(`nvidia-smi reports: ${failed}`, text);
  const rows = l.lines.filter((x) => x.length <= MAX_LINE_CHARS).map((x) => x.trim().split(/\s+/));
  // the header: GPU0 then another device column or `CPU Affinity`; a GPU row has a link code second
  const headIdx = rows.findIndex((w) => w[0] === 'GPU0' && w[1] !== undefined && !LINK.test(w[1]));
  if (headIdx < 0) return readUnreadable('no header row starting with GPU0', text);
  const head = headerOf(rows[headIdx]);
  const gpus = head.gpuCols.map((i) => head.words[i]);
  const blank = (n: number) => gpus.map(() => Array<string | null>(n).fill(null));
  const m: Matrix = {
    links: blank(gpus.length),
    nicLinks: blank(head.nicCols.length),
    cpuAffinity: gpus.map(() => null),
    numaAffinity: gpus.map(() => null),
  };
  let lastText = rows.length - 1;
  while (lastText > headIdx && rows[lastText].join('') === '') lastText--;
  let whole = 0;
  let lastRow = headIdx;
  let truncated: string | null = null;
  for (const [r, w] of rows.entries()) {
    if (r <= headIdx || !/^GPU\d+$/.test(w[0] ?? '') || whole === gpus.length) continue;
    const cells = w.slice(1, 1 + head.devices);
    const cut = cells.length < head.devices && r === lastText;
    if (!cut && (cells.length < head.devices || !cells.every((c) => LINK.test(c))))
      return readUnreadable(`the row of ${w[0]} is not a row of link codes`, text);
    addRow(m, head, whole, w, cut);
    if (cut) truncated = `the topology matrix is cut inside the row of ${w[0]}`;
    else whole++;
    lastRow = r;
  }
  if (!truncated && whole !== gpus.length) {
    if (lastText !== lastRow) return readUnreadable(`${gpus.length} GPU columns but ${whole} GPU rows`, text);
    if (whole === 0) return readUnknown(`the topology matrix of ${gpus.length} GPUs is cut after its header`);
    truncated = `the topology matrix of ${gpus.length} GPUs is cut after the row of GPU${whole - 1}`;
  }
  const legend = nicLegend(rows);
  const nics = head.nicCols.map((i) => legend.get(head.words[i]) ?? head.words[i]);
  return readValue({ gpus, ...m, nics, kind: kindOf(m.links), truncated });
}
