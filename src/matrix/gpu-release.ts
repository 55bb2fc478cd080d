// After a tear-down on a GPU host: did the server's processes release their GPUs? Polls nvidia-smi's
// compute-apps list for the server's PIDs (and optionally per-GPU memory in use) for a short while.

import { APPS_QUERY, GPU_QUERY, gpuLabel, readComputeApps, readGpus } from '../checkpoint/nvidia-smi.js';
import { monoNowMs } from '../core/clock.js';
import { describeNoValue } from '../core/read-result.js';
import type { ProcessHost } from '../hosts/host.js';
import { sleep } from './process-table.js';

export interface GpuReleaseResult {
  /** False when the host has no working nvidia-smi (nothing to check). */
  checked: boolean;
  /** One sentence when GPUs are still held, else null. */
  message: string | null;
}

async function query(host: ProcessHost, argv: string[]): Promise<string | null> {
  try {
    const r = await host.exec(argv, { timeoutMs: 15_000 });
    return r.code === 0 ? r.stdout : null;
  } catch {
    return null;
  }
}

export async function checkGpuRelease(
  host: ProcessHost,
  opts: { serverPids: readonly number[]; maxMemoryUsedMiB?: number; timeoutS?: number },
): Promise<GpuReleaseResult> {
  const deadline = monoNowMs() + (opts.timeoutS ?? 10) * 1000;
  const ours = new Set(opts.serverPids);
  for (;;) {
    const apps = await query(host, APPS_QUERY);
    if (apps === null) return { checked: false, message: null };
    const problems: string[] = [];
    const read = readComputeApps(apps, { emptyMeansNone: true, query: APPS_QUERY });
    if (read.kind !== 'value')
      return {
        checked: false,
        message: `GPU release not checked: ${APPS_QUERY.join(' ')} is ${describeNoValue(read)}.`,
      };
    const held = read.value.filter((a) => ours.has(a.pid));
    if (held.length > 0) {
      problems.push(
        `server process(es) still hold GPU memory: ${held.map((a) => `PID ${a.pid} on ${gpuLabel(a)} (${a.usedMemoryMiB ?? '?'} MiB)`).join(', ')}`,
      );
    }
    if (opts.maxMemoryUsedMiB !== undefined) {
      const inventory = readGpus((await query(host, GPU_QUERY)) ?? '', { query: GPU_QUERY });
      const gpus = inventory.kind === 'value' ? inventory.value.gpus : [];
      if (inventory.kind !== 'value') problems.push(`GPU memory not checked: ${describeNoValue(inventory)}`);
      const busy = gpus.filter(
        (g) => g.memoryUsedMiB !== null && g.memoryUsedMiB > (opts.maxMemoryUsedMiB as number),
      );
      if (busy.length > 0) {
        problems.push(
          `GPU memory not released: ${busy.map((g) => `GPU ${g.index} uses ${g.memoryUsedMiB} MiB`).join(', ')} (limit ${opts.maxMemoryUsedMiB} MiB)`,
        );
      }
    }
    if (problems.length === 0) return { checked: true, message: null };
    if (monoNowMs() >= deadline) return { checked: true, message: `${problems.join('; ')}.` };
    await sleep(250);
  }
}
