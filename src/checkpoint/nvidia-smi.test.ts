import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseComputeAppsCsv, parseGpuCsv, parseTopology } from './nvidia-smi.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');

describe('nvidia-smi parsers', () => {
  it('reads 8 GPUs with name, uuid and memory', () => {
    const gpus = parseGpuCsv(fixture('gpus-8-l40s.csv'));
    expect(gpus).toHaveLength(8);
    expect(gpus[7]).toMatchObject({
      index: 7,
      name: 'NVIDIA L40S',
      memoryUsedMiB: 40312,
      memoryTotalMiB: 46068,
    });
    expect(gpus[0].uuid).toMatch(/^GPU-[0-9a-f-]{36}$/);
  });

  it('reads compute apps including leftovers with [Not Found] names, and an empty list', () => {
    const apps = parseComputeAppsCsv(fixture('apps-8-leftover.csv'));
    expect(apps).toHaveLength(10);
    expect(apps[8]).toMatchObject({ pid: 51007, usedMemoryMiB: 412, processName: '[Not Found]' });
    expect(parseComputeAppsCsv(fixture('apps-empty.csv'))).toEqual([]);
    expect(parseComputeAppsCsv('No running processes found\n')).toEqual([]);
  });

  it('classifies a PCIe matrix (PIX/PXB/PHB/NODE/SYS) and an NVLink matrix with a NIC column', () => {
    const pcie = parseTopology(fixture('topo-pcie-8.txt'));
    expect(pcie?.kind).toBe('pcie');
    expect(pcie?.links[6][7]).toBe('PHB');
    const nv = parseTopology(fixture('topo-nvlink-8.txt'));
    expect(nv?.kind).toBe('nvlink');
    expect(nv?.gpus).toHaveLength(8);
    expect(nv?.links[0]).toEqual(['X', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18']);
    expect(parseTopology('NVIDIA-SMI has failed')).toBeNull();
  });
});
