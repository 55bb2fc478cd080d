import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReadResult } from '../core/read-result.js';
import { gpuSampleQuery, readComputeApps, readGpuSampleLine, readGpus, readTopology } from './nvidia-smi.js';

// The format corpus: one fixture per shape of nvidia-smi output users have (written for this project
// after the real formats), and the facts a correct reader must extract from it.
const dir = join(import.meta.dirname, 'fixtures');
const fixture = (name: string) => readFileSync(join(dir, name), 'utf8');
const TEN_MB = 'GPU0 X NV18 0-47 lorem ipsum, 1, 2, 3\n'.repeat((10 * 1024 * 1024) / 38);
const BINARY = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 131 + 7) % 256)).toString('latin1');
const BAD: [string, string, RegExp][] = [
  ['empty', '', /empty/],
  ['blank lines', '\n\n  \n', /empty/],
  ['binary garbage', BINARY, /binary/],
  ['10 MB of text', TEN_MB, /characters, far more than expected/],
  ['the driver failure message', fixture('nvidia-smi/failed-driver.txt'), /NVIDIA-SMI has failed/],
];

function value<T>(r: ReadResult<T>): T {
  if (r.kind !== 'value') throw new Error(`expected a value, got ${JSON.stringify(r)}`);
  return r.value;
}

describe('readGpus', () => {
  const cases: { name: string; file: string; count: number; first: object; last?: object; extra?: object }[] =
    [
      {
        name: 'csv,noheader,nounits (the query the check runs)',
        file: 'gpus-8-l40s.csv',
        count: 8,
        first: { index: 0, name: 'NVIDIA L40S', memoryUsedMiB: 40312, memoryTotalMiB: 46068 },
      },
      {
        name: 'csv with a header row and MiB units',
        file: 'nvidia-smi/query-gpu-header-units.csv',
        count: 8,
        first: { index: 0, name: 'NVIDIA H100 80GB HBM3', memoryUsedMiB: 32770, memoryTotalMiB: 81559 },
        last: { index: 7, memoryUsedMiB: 4 },
      },
      {
        name: 'csv with a header in another order, %, W, MHz units and [N/A]/[Unknown Error]',
        file: 'nvidia-smi/query-gpu-reordered-placeholders.csv',
        count: 2,
        first: {
          index: 0,
          name: 'NVIDIA A100-SXM4-80GB',
          uuid: null,
          memoryUsedMiB: 1,
          memoryTotalMiB: 81920,
        },
        last: { index: 1, memoryUsedMiB: null, memoryTotalMiB: 81920 },
      },
      {
        name: 'csv,noheader with units and [Insufficient Permissions]',
        file: 'nvidia-smi/query-gpu-noheader-units.csv',
        count: 2,
        first: { index: 0, name: 'NVIDIA GH200 480GB', memoryUsedMiB: null, memoryTotalMiB: 97871 },
        last: { index: 1, memoryUsedMiB: 97120 },
      },
      {
        name: 'the default table (driver 550 layout)',
        file: 'nvidia-smi/table-h100-processes.txt',
        count: 2,
        first: {
          index: 0,
          name: 'NVIDIA H100 80GB HBM3',
          uuid: null,
          memoryUsedMiB: 74312,
          memoryTotalMiB: 81559,
        },
        extra: { driverVersion: '550.127.08', cudaVersion: '12.4', shape: 'table' },
      },
      {
        name: 'the default table (driver 470 layout, truncated name)',
        file: 'nvidia-smi/table-a100-old-idle.txt',
        count: 1,
        first: { index: 0, name: 'NVIDIA A100-SXM...', memoryUsedMiB: 0, memoryTotalMiB: 40536 },
        extra: { driverVersion: '470.82.01', cudaVersion: '11.4' },
      },
    ];
  it.each(cases)('reads $name', ({ file, count, first, last, extra }) => {
    const inv = value(readGpus(fixture(file)));
    expect(inv.gpus).toHaveLength(count);
    expect(inv.gpus[0]).toMatchObject(first);
    if (last) expect(inv.gpus[count - 1]).toMatchObject(last);
    if (extra) expect(inv).toMatchObject(extra);
  });

  it.each([
    ...BAD,
    [
      'a CSV header with no rows',
      'index, name, uuid, memory.used [MiB], memory.total [MiB]\n',
      /header but no GPU rows/,
    ],
    ['prose', 'please paste the output here\n', /not a GPU row/],
  ] as [string, string, RegExp][])('says %s is unreadable, with an excerpt', (_n, text, why) => {
    const r = readGpus(text);
    expect(r).toMatchObject({ kind: 'unreadable', reason: expect.stringMatching(why) });
    if (r.kind === 'unreadable') expect(r.excerpt.length).toBeLessThan(400);
  });
});

it('reads near-limit outputs line by line, without backtracking blow-up', () => {
  const rows = `${'0, NVIDIA H100, GPU-1, 1, 2, '.repeat(60)}\n`.repeat(500);
  expect(rows.length).toBeGreaterThan(800_000);
  expect(readGpus(rows).kind).toBe('unreadable');
  expect(readTopology(`\tGPU0\tGPU1\n${'GPU0 '.repeat(190)}\n`.repeat(900)).kind).toBe('unreadable');
  expect(readComputeApps(`|${' 0 1 C x'.repeat(240)}|\n`.repeat(400)).kind).toBe('unreadable');
});

describe('readComputeApps', () => {
  const cases: {
    name: string;
    text: string;
    pids: number[];
    first?: object;
    opts?: { emptyMeansNone: boolean };
  }[] = [
    {
      name: 'csv,noheader,nounits with [Not Found] names',
      text: fixture('apps-8-leftover.csv'),
      pids: [48211, 48212, 48213, 48214, 48215, 48216, 48217, 48218, 51007, 51002],
      first: { gpuUuid: 'GPU-b8a1abcd-1a69-16c7-4da4-f9fc3c6da5d7', usedMemoryMiB: 39870 },
    },
    {
      name: 'csv with a header and MiB units (3 processes, 32 GB)',
      text: fixture('nvidia-smi/query-apps-header-mib.csv'),
      pids: [731204, 731388, 731390],
      first: { usedMemoryMiB: 10924, processName: '/opt/conda/bin/python3.11' },
    },
    {
      name: 'csv with header pid, process_name, used memory and [N/A]',
      text: fixture('nvidia-smi/query-apps-pid-name-mem.csv'),
      pids: [20811, 20990],
      first: { gpuUuid: null, usedMemoryMiB: 70112, processName: 'VLLM::EngineCore' },
    },
    { name: 'a header only', text: fixture('nvidia-smi/query-apps-header-only.csv'), pids: [] },
    { name: '"No running processes found"', text: 'No running processes found\n', pids: [] },
    { name: 'empty noheader output that exited 0', text: '', pids: [], opts: { emptyMeansNone: true } },
    {
      name: 'the Processes table',
      text: fixture('nvidia-smi/table-h100-processes.txt'),
      pids: [48811, 48812],
      first: { gpuIndex: 0, gpuUuid: null, usedMemoryMiB: 74302, processName: '/usr/bin/python3' },
    },
    {
      name: 'the table of a container (no processes)',
      text: fixture('nvidia-smi/table-container-no-processes.txt'),
      pids: [],
    },
    {
      name: 'the old table with no processes',
      text: fixture('nvidia-smi/table-a100-old-idle.txt'),
      pids: [],
    },
  ];
  it.each(cases)('reads $name', ({ text, pids, first, opts }) => {
    const apps = value(readComputeApps(text, opts));
    expect(apps.map((a) => a.pid)).toEqual(pids);
    if (first) expect(apps[0]).toMatchObject(first);
  });

  it.each(BAD)('says %s is unreadable', (_n, text, why) => {
    expect(readComputeApps(text)).toMatchObject({ kind: 'unreadable', reason: expect.stringMatching(why) });
  });

  it('says a table cut before its Processes section is unknown', () => {
    const t = fixture('nvidia-smi/table-h100-processes.txt');
    expect(readComputeApps(t.slice(0, t.indexOf('Processes:') - 95)).kind).toBe('unknown');
  });
});

describe('readTopology', () => {
  const cases: { name: string; file: string; kind: string; gpus: number; row0: string[] }[] = [
    {
      name: 'tabs, a NIC column, PIX/PXB/PHB/SYS',
      file: 'topo-pcie-8.txt',
      kind: 'pcie',
      gpus: 8,
      row0: ['X', 'PIX', 'PXB', 'PXB', 'SYS', 'SYS', 'SYS', 'SYS'],
    },
    {
      name: 'tabs, NV18 everywhere',
      file: 'topo-nvlink-8.txt',
      kind: 'nvlink',
      gpus: 8,
      row0: ['X', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18'],
    },
    {
      name: 'spaces, NV18, 4 NICs, affinity columns, bold/underline escapes and the legend',
      file: 'nvidia-smi/topo-8-nv18-spaces-ansi.txt',
      kind: 'nvlink',
      gpus: 8,
      row0: ['X', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18'],
    },
    {
      name: 'tabs, NV12 bridged pairs with NODE/PHB to the NIC',
      file: 'nvidia-smi/topo-4-nv12-pairs-tabs.txt',
      kind: 'mixed',
      gpus: 4,
      row0: ['X', 'NV12', 'SYS', 'SYS'],
    },
    {
      name: 'an older driver: spaces, a NIC named mlx5_bond_0, CPU Affinity only',
      file: 'nvidia-smi/topo-4-old-mlx-column.txt',
      kind: 'pcie',
      gpus: 4,
      row0: ['X', 'PIX', 'PHB', 'PHB'],
    },
    { name: 'one GPU', file: 'nvidia-smi/topo-1-gpu.txt', kind: 'single', gpus: 1, row0: ['X'] },
  ];
  it.each(cases)('reads $name', ({ file, kind, gpus, row0 }) => {
    const t = value(readTopology(fixture(file)));
    expect(t.kind).toBe(kind);
    expect(t.gpus).toHaveLength(gpus);
    expect(t.links[0]).toEqual(row0);
  });

  it.each([...BAD, ['a CSV', fixture('gpus-8-l40s.csv'), /no header row/]] as [string, string, RegExp][])(
    'says %s is unreadable',
    (_n, text, why) => {
      expect(readTopology(text)).toMatchObject({ kind: 'unreadable', reason: expect.stringMatching(why) });
    },
  );
});

describe('readGpuSampleLine', () => {
  it('reads a sampling line, placeholders as null', () => {
    expect(readGpuSampleLine('0, 87, 40312, 250.50, 1980, 1755')).toEqual({
      kind: 'value',
      value: {
        gpu: 0,
        utilizationPct: 87,
        memoryUsedMiB: 40312,
        powerW: 250.5,
        smClockMHz: 1980,
        graphicsClockMHz: 1755,
      },
    });
    const r = readGpuSampleLine('1, 0, 3, [N/A], [Not Supported], 210');
    expect(r.kind === 'value' && r.value.powerW).toBeNull();
    expect(r.kind === 'value' && r.value.graphicsClockMHz).toBe(210);
  });

  it('says a driver message, a header, a short row or binary garbage is unreadable, never a sample', () => {
    for (const line of [
      'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.',
      'index, utilization.gpu [%], memory.used [MiB], power.draw [W], clocks.current.sm [MHz], clocks.current.graphics [MHz]',
      '0, 87, 40312',
      '0, 87, 40312, lots, 1980, 1755',
      '\u0000\u0001\u0002',
      'x'.repeat(10_000),
    ])
      expect(readGpuSampleLine(line).kind).toBe('unreadable');
  });

  it('asks for one long-running process that loops at the interval', () => {
    expect(gpuSampleQuery(250)).toEqual([
      'nvidia-smi',
      '--query-gpu=index,utilization.gpu,memory.used,power.draw,clocks.sm,clocks.gr',
      '--format=csv,noheader,nounits',
      '-lms',
      '250',
    ]);
  });
});
