import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessHost } from '../hosts/host.js';
import { openHost } from '../hosts/open-host.js';
import { checkGpuRelease } from './gpu-release.js';

// A stub nvidia-smi on PATH that replays files in nvidia-smi's csv,noheader,nounits format.
let dir: string;
let host: ProcessHost;
const savedPath = process.env.PATH;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-gpu-'));
  await writeFile(
    join(dir, 'nvidia-smi'),
    `#!/bin/sh\ncase "$1" in\n  --query-compute-apps=*) cat "${dir}/apps.csv" ;;\n  --query-gpu=*) cat "${dir}/gpus.csv" ;;\n  *) exit 2 ;;\nesac\n`,
  );
  await chmod(join(dir, 'nvidia-smi'), 0o755);
  host = await openHost('local');
});
afterAll(async () => {
  process.env.PATH = savedPath;
  await rm(dir, { recursive: true, force: true });
});

describe('GPU release after tear-down', () => {
  it('reports a server PID still holding GPU memory, and passes once it is gone', async () => {
    process.env.PATH = `${dir}:${savedPath}`;
    await writeFile(
      join(dir, 'apps.csv'),
      '4242, GPU-aaaa-1111, 70000, python3\n5555, GPU-bbbb-2222, 100, other\n',
    );
    await writeFile(join(dir, 'gpus.csv'), '0, NVIDIA H100 PCIe, GPU-aaaa-1111, 70210, 81559\n');
    const held = await checkGpuRelease(host, { serverPids: [4242, 4243], timeoutS: 0.3 });
    expect(held.checked).toBe(true);
    expect(held.message).toBe(
      'server process(es) still hold GPU memory: PID 4242 on GPU-aaaa-1111 (70000 MiB).',
    );
    const memory = await checkGpuRelease(host, { serverPids: [1], maxMemoryUsedMiB: 1024, timeoutS: 0 });
    expect(memory.message).toContain('GPU 0 uses 70210 MiB (limit 1024 MiB)');
    await writeFile(join(dir, 'apps.csv'), '');
    await writeFile(join(dir, 'gpus.csv'), '0, NVIDIA H100 PCIe, GPU-aaaa-1111, 3, 81559\n');
    expect(await checkGpuRelease(host, { serverPids: [4242], maxMemoryUsedMiB: 1024, timeoutS: 0 })).toEqual({
      checked: true,
      message: null,
    });
  });

  it('skips the check on a host without nvidia-smi', async () => {
    process.env.PATH = '/nonexistent-bin';
    const r = await checkGpuRelease(host, { serverPids: [1], timeoutS: 0 });
    process.env.PATH = savedPath;
    expect(r).toEqual({ checked: false, message: null });
  });
});
