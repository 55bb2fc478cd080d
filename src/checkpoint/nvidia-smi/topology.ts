// `nvidia-smi topo -m`: the link matrix between GPUs (and NICs), aligned with tabs or spaces, bold and
// underline escapes or none, under a label such as "NVIDIA Topology:" when an environment report
// prints it, followed by CPU / NUMA affinity columns. A matrix the text ends inside is unknown (cut).

import { type ReadResult, readUnknown, readUnreadable, readValue } from '../../core/read-result.js';
import { failureOf, linesOf, MAX_LINE_CHARS } from './text.js';
import type { Topology } from './types.js';

const LINK = /^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$/;

interface Header {
  words: string[];
  /** Device columns (GPU#, NIC#, or NIC names such as mlx5_0 in older drivers). */
  devices: number;
  gpuCols: number[];
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
  const gpuCols = words.slice(0, devices).flatMap((c, i) => (/^GPU\d+$/.test(c) ? [i] : []));
  return { words, devices, gpuCols, affinity };
}

const kindOf = (links: string[][]): Topology['kind'] => {
  let nv = 0;
  let other = 0;
  links.forEach((row, i) => {
    row.forEach((cell, j) => {
      if (i !== j) /^NV\d+$/.test(cell) ? nv++ : other++;
    });
  });
  return links.length < 2 ? 'single' : other === 0 ? 'nvlink' : nv === 0 ? 'pcie' : 'mixed';
};

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
  const links: string[][] = [];
  const cpuAffinity: (string | null)[] = [];
  const numaAffinity: (string | null)[] = [];
  let lastRow = headIdx;
  let lastText = rows.length - 1;
  while (lastText > headIdx && rows[lastText].join('') === '') lastText--;
  for (const [r, w] of rows.entries()) {
    if (r <= headIdx || !/^GPU\d+$/.test(w[0] ?? '')) continue;
    const cells = w.slice(1, 1 + head.devices);
    if (cells.length < head.devices && r === lastText)
      return readUnknown(`the topology matrix is cut inside the row of ${w[0]}`);
    if (cells.length < head.devices || !cells.every((c) => LINK.test(c)))
      return readUnreadable(`the row of ${w[0]} is not a row of link codes`, text);
    links.push(head.gpuCols.map((i) => cells[i]));
    const extra = w.slice(1 + head.devices);
    const at = (k: Header['affinity'][number]) => {
      const v = extra[head.affinity.indexOf(k)];
      return v === undefined || v === 'N/A' || head.affinity.indexOf(k) < 0 ? null : v;
    };
    cpuAffinity.push(at('cpu'));
    numaAffinity.push(at('numa'));
    lastRow = r;
    if (links.length === gpus.length) break;
  }
  if (links.length !== gpus.length) {
    const ended = lastText === lastRow;
    const after = links.length > 0 ? `the row of GPU${links.length - 1}` : 'its header';
    return ended
      ? readUnknown(`the topology matrix of ${gpus.length} GPUs is cut after ${after}`)
      : readUnreadable(`${gpus.length} GPU columns but ${links.length} GPU rows`, text);
  }
  return readValue({ gpus, links, kind: kindOf(links), cpuAffinity, numaAffinity });
}
