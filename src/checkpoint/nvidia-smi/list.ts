// `nvidia-smi -L`: one line per GPU, `GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)`, with its MIG devices
// indented below (`  MIG 3g.40gb     Device  0: (UUID: MIG-…)`). Gives the count, names and UUIDs; a last
// line cut before its closing parenthesis makes the count (and that GPU's UUID) unknown, not its name.

import { type ReadResult, readUnreadable, readValue } from '../../core/read-result.js';
import { MAX_LINE_CHARS } from './text.js';
import { type GpuInventory, type GpuRow, gpuRow } from './types.js';

const GPU_LINE = /^GPU (\d+): (.+?) \(UUID: ((?:GPU|MIG)-[0-9a-fA-F-]+)\)$/;
const OPEN_GPU_LINE = /^GPU (\d+): /;

/** True when the text is `nvidia-smi -L` output. */
export function looksLikeList(lines: string[]): boolean {
  return lines.some((l) => l.length < 400 && OPEN_GPU_LINE.test(l.trim()) && /\(UUID: /.test(l));
}

export function readGpuList(lines: string[], text: string): ReadResult<GpuInventory> {
  const gpus: GpuRow[] = [];
  let truncated: string | null = null;
  for (const raw of lines) {
    const line = raw.length > MAX_LINE_CHARS ? '' : raw.trim();
    const m = GPU_LINE.exec(line);
    if (m) {
      gpus.push(gpuRow(Number(m[1]), { name: m[2], uuid: m[3] }));
      continue;
    }
    if (!OPEN_GPU_LINE.test(line)) continue;
    truncated = `the line of ${line.split(':')[0]} is cut`;
    // the name ends where ` (UUID: ` starts; the UUID after it may be cut
    const named = /^GPU (\d+): (.+?) \(UUID: /.exec(line);
    if (named) gpus.push(gpuRow(Number(named[1]), { name: named[2] }));
  }
  if (gpus.length === 0) return readUnreadable('no `GPU N: name (UUID: …)` line', text);
  return readValue({
    gpus,
    count: truncated ? null : gpus.length,
    truncated,
    driverVersion: null,
    cudaVersion: null,
    shape: 'list',
    migDevices: [],
  });
}
