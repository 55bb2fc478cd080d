// GPU telemetry during a level: ONE long-running `nvidia-smi --query-gpu=… -lms N` per level on the host
// that serves the target (cheaper than a process per sample), each line read as it arrives and stamped on
// the run's monotonic anchor, like record times. nvidia-smi missing, failing or finding no GPU is "no GPU
// telemetry" with the reason, never a failed run; lines that are not samples are counted, not guessed at.

import { performance } from 'node:perf_hooks';
import {
  GPU_SAMPLE_FIELDS,
  type GpuSample,
  gpuSampleQuery,
  readGpuSampleLine,
} from '../checkpoint/nvidia-smi.js';
import { excerptOf } from '../core/read-result.js';
import type { ProcessHost, SpawnedProcess } from '../hosts/host.js';

export interface GpuTelemetrySample extends GpuSample {
  /** ms since the run's monotonic anchor, when the line arrived. */
  tMs: number;
}

/** gpu-level-NN.json. */
export interface GpuTelemetry {
  /** False when no sample was read (`reason` says why). */
  available: boolean;
  reason: string | null;
  host: string;
  intervalMs: number;
  query: string;
  samples: GpuTelemetrySample[];
  /** Output lines that were not a sample of the query (driver messages, garbage), and the first of them. */
  unreadableLines: number;
  firstUnreadable: string | null;
}

/** How long stop() waits for nvidia-smi to end after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 2000;

/** Starts sampling on `host`; `stop()` ends the process and returns what it printed. */
export async function startGpuTelemetry(
  host: ProcessHost,
  originMs: number,
  intervalMs: number,
): Promise<{ stop(): Promise<GpuTelemetry> }> {
  const out: GpuTelemetry = {
    available: false,
    reason: null,
    host: host.description,
    intervalMs,
    query: GPU_SAMPLE_FIELDS,
    samples: [],
    unreadableLines: 0,
    firstUnreadable: null,
  };
  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    const t = performance.now() - originMs;
    const r = readGpuSampleLine(line);
    if (r.kind === 'value') out.samples.push({ tMs: t, ...r.value });
    else {
      out.unreadableLines++;
      out.firstUnreadable ??= excerptOf(line);
    }
  };
  let proc: SpawnedProcess;
  try {
    proc = await host.spawn(gpuSampleQuery(intervalMs), { onLine });
  } catch (e) {
    const reason = `nvidia-smi could not be started on ${host.description} (${(e as Error).message})`;
    return { stop: async () => ({ ...out, reason }) };
  }
  // a level that throws never reaches stop(): do not leave nvidia-smi looping after benchgate exits
  const onExit = (): void => void proc.kill('SIGKILL');
  process.once('exit', onExit);
  let ended: { code: number | null; signal: string | null } | null = null;
  const exited = proc.exited.then((x) => {
    ended = x;
    return x;
  });
  return {
    async stop() {
      process.removeListener('exit', onExit);
      const endedEarly = ended;
      if (!ended) {
        await proc.kill('SIGTERM');
        const timer = setTimeout(() => void proc.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      out.available = out.samples.length > 0;
      if (!out.available) out.reason = noSampleReason(out, endedEarly);
      return out;
    },
  };
}

function noSampleReason(out: GpuTelemetry, ended: { code: number | null } | null): string {
  const said = out.firstUnreadable ? `; it printed: ${out.firstUnreadable}` : '';
  if (out.firstUnreadable && /No devices were found/i.test(out.firstUnreadable))
    return `nvidia-smi on ${out.host} found no GPU`;
  if (ended)
    return `nvidia-smi on ${out.host} exited (code ${ended.code ?? 'none'}) before any sample${said}`;
  return `nvidia-smi on ${out.host} printed no sample during the level${said}`;
}
