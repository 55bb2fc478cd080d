// Test helper: a directory holding a fake `nvidia-smi` for PATH. It answers the GPU sampling query
// (src/checkpoint/nvidia-smi.ts gpuSampleQuery) with fixed, deterministic figures per GPU — once, or every
// `-lms N` ms until killed, as the real one loops — and the checkpoint's inventory query. Power is constant
// per GPU, so a level's energy is exactly Σ power × window and a test can check J/token by hand.

import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeGpu {
  powerW: number;
  utilizationPct: number;
  memoryUsedMiB: number;
  smClockMHz: number;
  graphicsClockMHz: number;
}

export function fakeNvidiaSmi(gpus: FakeGpu[], opts: { garbageLine?: string } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'bg-fake-nvsmi-'));
  const sample = gpus
    .map(
      (g, i) =>
        `${i}, ${g.utilizationPct}, ${g.memoryUsedMiB}, ${g.powerW.toFixed(2)}, ${g.smClockMHz}, ${g.graphicsClockMHz}`,
    )
    .join('\n');
  const inventory = gpus
    .map(
      (g, i) =>
        `${i}, NVIDIA H100 80GB HBM3, GPU-0000000${i}-1111-2222-3333-444444444444, ${g.memoryUsedMiB}, 81559`,
    )
    .join('\n');
  writeFileSync(join(dir, 'sample.txt'), `${opts.garbageLine ? `${opts.garbageLine}\n` : ''}${sample}\n`);
  writeFileSync(join(dir, 'inventory.txt'), `${inventory}\n`);
  writeFileSync(
    join(dir, 'nvidia-smi'),
    `#!/bin/sh
d=$(dirname "$0")
lms=""
prev=""
for a in "$@"; do
  [ "$prev" = "-lms" ] && lms="$a"
  prev="$a"
done
case "$*" in
  *--query-gpu=index,utilization.gpu,*)
    if [ -z "$lms" ]; then cat "$d/sample.txt"; exit 0; fi
    pause="$((lms / 1000)).$(printf '%03d' $((lms % 1000)))"
    while :; do cat "$d/sample.txt"; sleep "$pause"; done ;;
  *--query-gpu=*) cat "$d/inventory.txt" ;;
  *--query-compute-apps=*) ;;
  *) exit 2 ;;
esac
`,
  );
  chmodSync(join(dir, 'nvidia-smi'), 0o755);
  return dir;
}
