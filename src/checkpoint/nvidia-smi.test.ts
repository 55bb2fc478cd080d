import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReadResult } from '../core/read-result.js';
import { topologyRule } from './checks/gpu-rules.js';
import {
  gpuSampleQuery,
  readComputeApps,
  readGpuSampleLine,
  readGpus,
  readProcesses,
  readTopology,
} from './nvidia-smi.js';

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
  interface GpuCase {
    name: string;
    file: string;
    /** How many GPUs the host has (null: the output was cut before saying). */
    count: number | null;
    /** The rows read, in order (partial facts). */
    rows: object[];
    extra?: object;
  }
  const H100 = 'NVIDIA H100 80GB HBM3';
  const cases: GpuCase[] = [
    {
      name: 'csv,noheader,nounits (the query the check runs)',
      file: 'gpus-8-l40s.csv',
      count: 8,
      rows: [{ index: 0, name: 'NVIDIA L40S', memoryUsedMiB: 40312, memoryTotalMiB: 46068 }],
    },
    {
      name: 'csv with a header row and MiB units',
      file: 'nvidia-smi/query-gpu-header-units.csv',
      count: 8,
      rows: [{ index: 0, name: H100, memoryUsedMiB: 32770, memoryTotalMiB: 81559 }],
      extra: { truncated: null },
    },
    {
      name: 'csv with a header in another order, %, W, MHz units and [N/A]/[Unknown Error]',
      file: 'nvidia-smi/query-gpu-reordered-placeholders.csv',
      count: 2,
      rows: [
        { index: 0, name: 'NVIDIA A100-SXM4-80GB', uuid: null, memoryUsedMiB: 1, utilizationPct: 0 },
        { index: 1, memoryUsedMiB: null, memoryTotalMiB: 81920, utilizationPct: null },
      ],
    },
    {
      name: 'csv,noheader with units and [Insufficient Permissions]',
      file: 'nvidia-smi/query-gpu-noheader-units.csv',
      count: 2,
      rows: [
        { index: 0, name: 'NVIDIA GH200 480GB', memoryUsedMiB: null, memoryTotalMiB: 97871 },
        { index: 1, memoryUsedMiB: 97120 },
      ],
    },
    {
      name: 'a wide csv (13 columns: timestamp, bus id, driver, pstate, temperature, both utilisations, free)',
      file: 'nvidia-smi/query-gpu-wide-header.csv',
      count: 4,
      rows: [
        {
          index: 0,
          name: 'NVIDIA L40S',
          busId: '00000000:01:00.0',
          memoryUsedMiB: 43973,
          utilizationPct: 98,
        },
        { index: 1, busId: '00000000:41:00.0' },
        { index: 2, memoryUsedMiB: 11, memoryTotalMiB: 46068, utilizationPct: 0 },
        { index: 3, busId: '00000000:C1:00.0' },
      ],
      extra: { driverVersion: '570.133.20' },
    },
    {
      name: 'csv with every cell quoted',
      file: 'nvidia-smi/query-gpu-quoted.csv',
      count: 2,
      rows: [
        {
          index: 0,
          name: 'NVIDIA RTX 6000 Ada Generation',
          uuid: 'GPU-5a1d2c3b-11e0-4f6a-9c3e-2b7d8e9f0a11',
        },
        { index: 1, memoryUsedMiB: 40119, memoryTotalMiB: 49140, utilizationPct: 87 },
      ],
    },
    {
      name: 'a -l loop printing each GPU three times (counted once, the last sample kept)',
      file: 'nvidia-smi/query-gpu-loop-repeated.csv',
      count: 2,
      rows: [
        { index: 0, memoryUsedMiB: 75124, utilizationPct: 95 },
        { index: 1, memoryUsedMiB: 75122, utilizationPct: 94 },
      ],
    },
    {
      name: 'noheader csv after the pasted command line that names its columns, prompts around it',
      file: 'nvidia-smi/query-gpu-pasted-command.txt',
      count: 2,
      rows: [
        {
          index: 0,
          name: 'NVIDIA A100-SXM4-80GB',
          memoryUsedMiB: 62311,
          memoryTotalMiB: 81920,
          utilizationPct: 71,
        },
        { index: 1, memoryUsedMiB: 4, utilizationPct: 0 },
      ],
    },
    {
      name: 'noheader csv in an unknown order: names and count, memory unknown (never guessed)',
      file: 'nvidia-smi/query-gpu-noheader-unknown-order.csv',
      count: 2,
      rows: [{ index: 0, name: 'NVIDIA GeForce RTX 4090', memoryUsedMiB: null, memoryTotalMiB: null }],
    },
    {
      name: 'csv of count, name, driver_version',
      file: 'nvidia-smi/query-gpu-count-driver.csv',
      count: 8,
      rows: [{ index: 0, name: 'NVIDIA B200' }],
      extra: { driverVersion: '580.82.07' },
    },
    {
      name: 'csv of a unified-memory GPU (DGX Spark): memory [N/A], a unit-less temperature column',
      file: 'nvidia-smi/query-gpu-gb10-na.csv',
      count: 1,
      rows: [{ index: 0, name: null, memoryUsedMiB: null, memoryTotalMiB: null, utilizationPct: 0 }],
    },
    {
      name: 'csv with its header printed again between samples',
      file: 'nvidia-smi/query-gpu-repeated-header.csv',
      count: 2,
      rows: [
        { index: 0, memoryUsedMiB: 20111, utilizationPct: 55 },
        { index: 1, memoryUsedMiB: 20109, utilizationPct: 54 },
      ],
    },
    {
      name: 'csv cut in the middle of the sixth line: five GPUs seen, the count unknown',
      file: 'nvidia-smi/query-gpu-cut-mid-line.csv',
      count: null,
      rows: [{ index: 0, name: H100, memoryUsedMiB: 74120 }, {}, {}, {}, { index: 4, memoryUsedMiB: 74118 }],
      extra: { truncated: expect.stringContaining('the last line is cut (3 of 5 cells') },
    },
    {
      name: 'the default table (driver 550 layout)',
      file: 'nvidia-smi/table-h100-processes.txt',
      count: 2,
      rows: [
        {
          index: 0,
          name: H100,
          uuid: null,
          busId: '00000000:18:00.0',
          memoryUsedMiB: 74312,
          utilizationPct: 97,
        },
        { index: 1, memoryUsedMiB: 74310, memoryTotalMiB: 81559, utilizationPct: 95, migEnabled: false },
      ],
      extra: { driverVersion: '550.127.08', cudaVersion: '12.4', shape: 'table' },
    },
    {
      name: 'the default table (driver 470 layout, name cut by nvidia-smi)',
      file: 'nvidia-smi/table-a100-old-idle.txt',
      count: 1,
      rows: [
        { index: 0, name: 'NVIDIA A100-SXM...', nameCut: true, memoryUsedMiB: 0, memoryTotalMiB: 40536 },
      ],
      extra: { driverVersion: '470.82.01', cudaVersion: '11.4' },
    },
    {
      name: 'the table of driver 418 (no MIG line, the old Processes header)',
      file: 'nvidia-smi/table-418-v100-old-processes.txt',
      count: 4,
      rows: [
        {
          index: 0,
          name: 'Tesla V100-SXM2...',
          memoryUsedMiB: 15678,
          memoryTotalMiB: 16130,
          utilizationPct: 87,
        },
        {},
        {},
        { index: 3, busId: '00000000:00:1E.0', memoryUsedMiB: 0, utilizationPct: 0, migEnabled: null },
      ],
      extra: { driverVersion: '418.87.00', cudaVersion: '10.1' },
    },
    {
      name: 'the table of driver 515 pasted indented in a Markdown list, with the prompt and fences',
      file: 'nvidia-smi/table-515-indented-markdown.txt',
      count: 2,
      rows: [
        { index: 0, name: 'Tesla P100-PCIE...', memoryUsedMiB: 103, memoryTotalMiB: 16384 },
        { index: 1 },
      ],
      extra: { driverVersion: '515.65.01', cudaVersion: '11.7' },
    },
    {
      name: 'the table of driver 535 (89 columns) with MIG on GPU0 and its MIG devices',
      file: 'nvidia-smi/table-535-a100-mig.txt',
      count: 2,
      rows: [
        {
          index: 0,
          name: 'NVIDIA A100-SXM4-40GB',
          memoryUsedMiB: 4219,
          utilizationPct: null,
          migEnabled: true,
        },
        { index: 1, memoryUsedMiB: 31245, memoryTotalMiB: 40960, utilizationPct: 93, migEnabled: false },
      ],
      extra: {
        driverVersion: '535.161.08',
        cudaVersion: '12.2',
        migDevices: [
          {
            gpuIndex: 0,
            gpuInstanceId: 1,
            computeInstanceId: 0,
            migIndex: 0,
            memoryUsedMiB: 4194,
            memoryTotalMiB: 19968,
          },
          {
            gpuIndex: 0,
            gpuInstanceId: 5,
            computeInstanceId: 0,
            migIndex: 1,
            memoryUsedMiB: 25,
            memoryTotalMiB: 9856,
          },
        ],
      },
    },
    {
      name: 'the table under `watch` in WSL (CRLF; SMI 535, Windows driver 537), a GPU fallen off the bus (ERR!)',
      file: 'nvidia-smi/table-535-wsl-watch-err.txt',
      count: 2,
      rows: [
        {
          index: 0,
          name: 'NVIDIA GeForce RTX 3090',
          memoryUsedMiB: 1190,
          memoryTotalMiB: 24576,
          utilizationPct: 4,
        },
        {
          index: 1,
          name: null,
          busId: '00000000:02:00.0',
          memoryUsedMiB: null,
          memoryTotalMiB: null,
          utilizationPct: null,
        },
      ],
      extra: { driverVersion: '537.13', cudaVersion: '12.2' },
    },
    {
      name: 'the table of driver 570 (4 × A10G)',
      file: 'nvidia-smi/table-570-a10g-4gpus.txt',
      count: 4,
      rows: [
        { index: 0, name: 'NVIDIA A10G', memoryUsedMiB: 21993, memoryTotalMiB: 23028 },
        {},
        {},
        { utilizationPct: 3 },
      ],
      extra: { driverVersion: '570.172.08', cudaVersion: '12.8' },
    },
    {
      name: 'the table of driver 580 (border header line, 8 × H100, "E. Process")',
      file: 'nvidia-smi/table-580-h100-8gpus.txt',
      count: 8,
      rows: [
        { index: 0, name: H100, busId: '00000000:18:00.0', memoryUsedMiB: 71895, utilizationPct: 94 },
        {},
        {},
        {},
        { index: 4, memoryUsedMiB: 0 },
        {},
        {},
        { index: 7, busId: '00000000:DB:00.0', memoryUsedMiB: 12884, utilizationPct: 0 },
      ],
      extra: { driverVersion: '580.95.05', cudaVersion: '13.0', truncated: null },
    },
    {
      name: 'the table of a DGX Spark (memory "Not Supported", power cap N/A)',
      file: 'nvidia-smi/table-580-gb10-not-supported.txt',
      count: 1,
      rows: [
        {
          index: 0,
          name: 'NVIDIA GB10',
          busId: '0000000F:01:00.0',
          memoryUsedMiB: null,
          memoryTotalMiB: null,
        },
      ],
    },
    {
      name: 'the Windows table (Driver-Model column, WDDM)',
      file: 'nvidia-smi/table-581-windows-wddm.txt',
      count: 1,
      rows: [
        {
          index: 0,
          name: 'NVIDIA GeForce RTX 3060 ...',
          nameCut: true,
          memoryUsedMiB: 5742,
          utilizationPct: 100,
        },
      ],
      extra: { driverVersion: '581.32', cudaVersion: '13.0' },
    },
    {
      name: 'a later Windows table whose header says KMD Version and CUDA UMD Version',
      file: 'nvidia-smi/table-616-kmd-version.txt',
      count: 1,
      rows: [{ index: 0, memoryTotalMiB: 6144 }],
      extra: { driverVersion: '616.92', cudaVersion: '13.4' },
    },
    {
      name: 'a table a terminal wrapped at 80 columns',
      file: 'nvidia-smi/table-550-wrapped-80.txt',
      count: 2,
      rows: [
        { index: 0, name: 'Tesla P4', memoryUsedMiB: 7719, memoryTotalMiB: 8192, utilizationPct: 6 },
        { index: 1, memoryUsedMiB: 2, utilizationPct: 0 },
      ],
      extra: { driverVersion: '550.135', cudaVersion: '12.4' },
    },
    {
      name: 'a table a narrow terminal cut at 80 columns: the cut column (utilisation, CUDA) unknown',
      file: 'nvidia-smi/table-550-narrow-terminal-cut.txt',
      count: 2,
      rows: [
        { index: 0, name: 'Tesla P4', memoryUsedMiB: 7719, memoryTotalMiB: 8192, utilizationPct: null },
        { index: 1, memoryUsedMiB: 2, utilizationPct: null },
      ],
      extra: { driverVersion: '550.135', cudaVersion: null },
    },
    {
      name: 'a table cut after GPU1 of four: 2 GPUs seen, the count unknown',
      file: 'nvidia-smi/table-570-cut-after-gpu1.txt',
      count: null,
      rows: [
        { index: 0, memoryUsedMiB: 21993 },
        { index: 1, memoryUsedMiB: 6185 },
      ],
      extra: { truncated: expect.stringContaining('ends after the block of GPU1') },
    },
    {
      name: 'a table cut inside the first line of GPU2: its facts and the count unknown',
      file: 'nvidia-smi/table-580-cut-mid-row.txt',
      count: null,
      rows: [{ index: 0 }, { index: 1, memoryUsedMiB: 71893 }, { index: 2, name: null, memoryUsedMiB: null }],
      extra: { truncated: 'the output is cut inside the block of GPU2' },
    },
    {
      name: 'nvidia-smi -q (2 GPUs, 50-column keys)',
      file: 'nvidia-smi/query-q-h100-2gpus.txt',
      count: 2,
      rows: [
        {
          index: 0,
          name: H100,
          uuid: 'GPU-b8a1abcd-1a69-16c7-4da4-f9fc3c6da5d7',
          busId: '00000000:18:00.0',
          memoryUsedMiB: 13107,
          memoryTotalMiB: 81559,
          utilizationPct: 0,
          migEnabled: false,
        },
        { index: 1, memoryUsedMiB: 72021, utilizationPct: 97 },
      ],
      extra: { driverVersion: '570.124.06', cudaVersion: '12.8', shape: 'query', truncated: null },
    },
    {
      name: 'nvidia-smi -q -d MEMORY (4 GPUs, no names)',
      file: 'nvidia-smi/query-q-memory-only.txt',
      count: 4,
      rows: [
        { index: 0, name: null, memoryUsedMiB: 30871, memoryTotalMiB: 81920 },
        {},
        {},
        { memoryUsedMiB: 3 },
      ],
      extra: { driverVersion: '535.129.03', cudaVersion: '12.2' },
    },
    {
      name: 'nvidia-smi -q cut inside the second GPU: the count still known from "Attached GPUs"',
      file: 'nvidia-smi/query-q-cut.txt',
      count: 2,
      rows: [
        { index: 0, memoryUsedMiB: 13107 },
        { index: 1, memoryUsedMiB: null },
      ],
      extra: { truncated: 'the output is cut inside the block of GPU 00000000:2A:00.0' },
    },
    {
      name: 'nvidia-smi -L',
      file: 'nvidia-smi/list-8-h100.txt',
      count: 8,
      rows: [{ index: 0, name: H100, uuid: 'GPU-b8a1abcd-1a69-16c7-4da4-f9fc3c6da5d7', memoryUsedMiB: null }],
      extra: { shape: 'list' },
    },
    {
      name: 'nvidia-smi -L with MIG devices under GPU0',
      file: 'nvidia-smi/list-a100-mig.txt',
      count: 2,
      rows: [
        { index: 0, name: 'NVIDIA A100-SXM4-40GB' },
        { index: 1, uuid: 'GPU-7a0c2d3e-9f8b-4c4d-ae3f-2a1b4c5d6e7f' },
      ],
    },
    {
      name: 'nvidia-smi -L cut inside the third line',
      file: 'nvidia-smi/list-cut.txt',
      count: null,
      // the third line's name is whole (it ends at " (UUID: "); its UUID is cut
      rows: [{ index: 0, name: 'NVIDIA L40S' }, { index: 1 }, { index: 2, name: 'NVIDIA L40S', uuid: null }],
      extra: { truncated: 'the line of GPU 2 is cut' },
    },
    {
      name: 'nvidia-smi -q -x (XML)',
      file: 'nvidia-smi/query-x-2gpus-process.xml',
      count: 2,
      rows: [
        {
          index: 0,
          name: 'NVIDIA L40S',
          uuid: 'GPU-5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b',
          busId: '00000000:18:00.0',
          memoryUsedMiB: 40122,
          memoryTotalMiB: 46068,
          utilizationPct: 87,
          migEnabled: null,
        },
        { index: 1, memoryUsedMiB: 1 },
      ],
      extra: { driverVersion: '570.124.06', cudaVersion: '12.8', truncated: null },
    },
    {
      name: 'nvidia-smi -q -x cut inside the second GPU: the count from <attached_gpus>, a cut value unread',
      file: 'nvidia-smi/query-x-cut.xml',
      count: 2,
      rows: [
        { index: 0, memoryUsedMiB: 40122 },
        { index: 1, name: 'NVIDIA L40S', memoryTotalMiB: 46068, memoryUsedMiB: null },
      ],
      extra: { truncated: 'the output is cut inside the element of GPU 00000000:3B:00.0' },
    },
  ];
  it.each(cases)('reads $name', ({ file, count, rows, extra }) => {
    const inv = value(readGpus(fixture(file)));
    expect(inv.count).toBe(count);
    // a cut output: the GPUs it shows, and why more may follow
    if (count === null) expect(inv.truncated).toEqual(expect.any(String));
    expect(inv.gpus).toHaveLength(count ?? rows.length);
    for (const [i, r] of rows.entries()) expect(inv.gpus[i]).toMatchObject(r);
    if (extra) expect(inv).toMatchObject(extra);
  });

  it.each([
    [
      'the Processes section alone',
      'nvidia-smi/table-processes-only.txt',
      'unknown',
      /only the Processes section/,
    ],
    [
      'the Processes section without its title line',
      'nvidia-smi/table-processes-untitled-580.txt',
      'unknown',
      /only the Processes section/,
    ],
    [
      'a compute-apps CSV',
      'nvidia-smi/query-apps-header-mib.csv',
      'unreadable',
      /--query-compute-apps CSV \(processes\)/,
    ],
    [
      'a compute-apps CSV without a header',
      'nvidia-smi/query-apps-noheader-units-own-order.csv',
      'unreadable',
      /not a GPU row/,
    ],
  ])('does not read GPUs from %s', (_n, file, kind, why) => {
    expect(readGpus(fixture(file))).toMatchObject({ kind, reason: expect.stringMatching(why) });
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

  const more: { name: string; file: string; apps: object[]; truncated?: RegExp }[] = [
    {
      name: 'the table of driver 418 (GPU, PID, Type, name, memory; no GI/CI)',
      file: 'nvidia-smi/table-418-v100-old-processes.txt',
      apps: [
        { gpuIndex: 0, pid: 8351, type: 'C', processName: '/usr/bin/python3.6', usedMemoryMiB: 15667 },
        { gpuIndex: 1, pid: 8352, usedMemoryMiB: 15649 },
      ],
    },
    {
      name: 'the table of driver 535 with a process in MIG instance GI 1 / CI 0',
      file: 'nvidia-smi/table-535-a100-mig.txt',
      apps: [
        { gpuIndex: 0, pid: 201877, processName: 'python3', usedMemoryMiB: 4166 },
        { gpuIndex: 1, pid: 201990, processName: '/opt/conda/bin/python', usedMemoryMiB: 31216 },
      ],
    },
    {
      name: 'the table of driver 580 (wide PID column, a name nvidia-smi shortened with ...)',
      file: 'nvidia-smi/table-580-h100-8gpus.txt',
      apps: [
        { gpuIndex: 0, pid: 3340512, processName: 'sglang::scheduler_TP0', usedMemoryMiB: 71876 },
        {},
        {},
        { gpuIndex: 3, pid: 3340515 },
        {
          gpuIndex: 7,
          pid: 998117,
          processName: '...conda3/envs/old-bench/bin/python',
          usedMemoryMiB: 12876,
        },
      ],
    },
    {
      name: 'the Windows table (C+G rows whose memory is N/A)',
      file: 'nvidia-smi/table-581-windows-wddm.txt',
      apps: [
        {
          gpuIndex: 0,
          pid: 1520,
          type: 'C+G',
          processName: 'C:\\Windows\\explorer.exe',
          usedMemoryMiB: null,
        },
        { pid: 9876, type: 'C', usedMemoryMiB: null },
      ],
    },
    {
      name: 'a WSL table (PID 22, /Xwayland, memory N/A)',
      file: 'nvidia-smi/table-535-wsl-watch-err.txt',
      apps: [{ gpuIndex: 0, pid: 22, type: 'G', processName: '/Xwayland', usedMemoryMiB: null }],
    },
    {
      name: 'the Processes section alone',
      file: 'nvidia-smi/table-processes-only.txt',
      apps: [
        { gpuIndex: 0, pid: 4935, usedMemoryMiB: 18256 },
        { pid: 4936, usedMemoryMiB: 630 },
        { gpuIndex: 1 },
        {},
      ],
    },
    {
      name: 'a table a terminal wrapped at 80 columns',
      file: 'nvidia-smi/table-550-wrapped-80.txt',
      apps: [{ gpuIndex: 0, pid: 2187, processName: 'python3 -m piper', usedMemoryMiB: 7710 }],
    },
    {
      name: 'a table a terminal cut at 80 columns: the PID read, the memory and the name end unknown',
      file: 'nvidia-smi/table-550-narrow-terminal-cut.txt',
      apps: [{ gpuIndex: 0, pid: 2187, processName: 'python3 -m piper…', usedMemoryMiB: null }],
    },
    {
      name: 'the table of a DGX Spark',
      file: 'nvidia-smi/table-580-gb10-not-supported.txt',
      apps: [
        { pid: 2211, type: 'G' },
        { pid: 48870, processName: '.../llama.cpp/build/bin/llama-server', usedMemoryMiB: 63931 },
      ],
    },
    {
      name: 'nvidia-smi -q (Processes : None on GPU0, two processes on GPU1, one without a name)',
      file: 'nvidia-smi/query-q-h100-2gpus.txt',
      apps: [
        {
          pid: 90211,
          gpuUuid: 'GPU-1710cf53-27ac-435a-7a97-c643656412a9',
          gpuBusId: '00000000:2A:00.0',
          type: 'C',
          processName: '/usr/bin/python3',
          usedMemoryMiB: 72010,
        },
        { pid: 91877, processName: '', usedMemoryMiB: 4 },
      ],
    },
    {
      name: 'csv with gpu_name, gpu_bus_id and a command line with commas as the process name',
      file: 'nvidia-smi/query-apps-gpu-name-bus.csv',
      apps: [
        { pid: 1187223, gpuBusId: '00000000:18:00.0', processName: 'VLLM::Worker_TP0', usedMemoryMiB: 72018 },
        {},
        {
          pid: 2004417,
          gpuBusId: '00000000:2A:00.0',
          usedMemoryMiB: 1552,
          processName: expect.stringMatching(
            /^python3 -c "import torch,time; x = torch.empty\(1<<30,device='cuda'\)/,
          ),
        },
      ],
    },
    {
      name: 'csv with quoted cells and a quoted name holding a comma and quotes',
      file: 'nvidia-smi/query-apps-quoted-name.csv',
      apps: [{ pid: 77102, usedMemoryMiB: 10924, processName: '/srv/bench/run, "final" copy/python3' }],
    },
    {
      name: 'noheader csv in another order, each cell read by its unit (pid, process_name, used_memory)',
      file: 'nvidia-smi/query-apps-noheader-units-own-order.csv',
      apps: [
        { pid: 3051822, processName: 'python3', usedMemoryMiB: 38150 },
        {},
        { pid: 3104417, processName: '/usr/bin/python3 -m sglang.launch_server', usedMemoryMiB: 70812 },
      ],
    },
    {
      name: 'csv cut in the middle of its second row',
      file: 'nvidia-smi/query-apps-cut.csv',
      apps: [{ pid: 731204, usedMemoryMiB: 10924 }],
      truncated: /the last line is cut \(2 of 4 cells/,
    },
    {
      name: 'the Processes section pasted without its title line (580, wide PID column)',
      file: 'nvidia-smi/table-processes-untitled-580.txt',
      apps: [
        { gpuIndex: 0, pid: 1187332, processName: 'python3 -m sglang.launch_server', usedMemoryMiB: 70122 },
        { gpuIndex: 1, pid: 1187333 },
      ],
    },
    {
      name: 'a table cut after GPU1, before its Processes section',
      file: 'nvidia-smi/table-570-cut-after-gpu1.txt',
      apps: [],
      truncated: /./,
    },
  ];
  it.each(more)('lists the processes of $name', ({ file, apps, truncated }) => {
    const r = readProcesses(fixture(file));
    if (file.includes('cut-after-gpu1')) {
      expect(r).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/no Processes section/) });
      return;
    }
    const listing = value(r);
    expect(listing.apps).toHaveLength(apps.length);
    for (const [i, a] of apps.entries()) expect(listing.apps[i]).toMatchObject(a);
    if (truncated) expect(listing.truncated).toMatch(truncated);
    else expect(listing.truncated).toBeNull();
  });

  it('says a listing that was cut is unknown as a whole list, never the rows it showed', () => {
    expect(readComputeApps(fixture('nvidia-smi/query-apps-cut.csv'))).toMatchObject({
      kind: 'unknown',
      reason: expect.stringMatching(/^truncated: the last line is cut/),
    });
    expect(readComputeApps(fixture('nvidia-smi/query-q-memory-only.txt')).kind).toBe('unknown');
  });

  it.each(BAD)('says %s is unreadable', (_n, text, why) => {
    expect(readComputeApps(text)).toMatchObject({ kind: 'unreadable', reason: expect.stringMatching(why) });
  });

  it('reads the processes of -q -x (XML), and says a cut one is unknown', () => {
    expect(value(readComputeApps(fixture('nvidia-smi/query-x-2gpus-process.xml')))).toEqual([
      {
        pid: 21344,
        gpuUuid: 'GPU-5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b',
        gpuIndex: null,
        gpuBusId: '00000000:18:00.0',
        usedMemoryMiB: 40110,
        processName: 'python3',
        type: null,
      },
    ]);
    expect(readComputeApps(fixture('nvidia-smi/query-x-cut.xml')).kind).toBe('unknown');
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
    {
      name: "SGLang check_env's report: a label line, tabs, ' X ' cells, 4 NICs, an empty cell before GPU NUMA ID",
      file: 'nvidia-smi/topo-8-check-env-tabs.txt',
      kind: 'nvlink',
      gpus: 8,
      row0: ['X', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18'],
    },
  ];
  it.each(cases)('reads $name', ({ file, kind, gpus, row0 }) => {
    const t = value(readTopology(fixture(file)));
    expect(t.kind).toBe(kind);
    expect(t.gpus).toHaveLength(gpus);
    expect(t.links[0]).toEqual(row0);
  });

  it('reads the CPU and NUMA affinity of each GPU', () => {
    const t = value(readTopology(fixture('nvidia-smi/topo-8-check-env-tabs.txt')));
    expect(t.cpuAffinity).toEqual([...Array(4).fill('0-47,96-143'), ...Array(4).fill('48-95,144-191')]);
    expect(t.numaAffinity).toEqual(['0', '0', '0', '0', '1', '1', '1', '1']);
    const old = value(readTopology(fixture('nvidia-smi/topo-4-old-mlx-column.txt')));
    expect(old.numaAffinity).toEqual([null, null, null, null]);
  });

  it('keeps the links a matrix cut inside a GPU row showed, and says the rest is unknown (cut)', () => {
    const t = value(readTopology(fixture('nvidia-smi/topo-8-cut.txt')));
    expect(t.truncated).toBe('the topology matrix is cut inside the row of GPU5');
    expect(t.kind).toBe('unknown');
    expect(t.links[0]).toEqual(['X', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18']);
    // GPU5's row shows its first three cells (the fourth may be cut); its column, from rows 0-4
    expect(t.links[5]).toEqual(['NV18', 'NV18', 'NV18', 'NV18', 'NV18', null, null, null]);
    expect(t.links[6][7]).toBeNull();
    const header = fixture('nvidia-smi/topo-8-check-env-tabs.txt').split('\n').slice(0, 5).join('\n');
    const three = value(readTopology(header));
    expect(three.truncated).toBe('the topology matrix of 8 GPUs is cut after the row of GPU2');
    expect(three.links[2]).toEqual(['NV18', 'NV18', 'X', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18']);
    expect(readTopology(header.split('\n').slice(0, 2).join('\n'))).toEqual({
      kind: 'unknown',
      reason: 'the topology matrix of 8 GPUs is cut after its header',
    });
  });

  it('says a cut matrix is mixed when the links it showed already are', () => {
    const cut = fixture('nvidia-smi/topo-4-nv12-pairs-tabs.txt').split('\n').slice(0, 2).join('\n');
    const t = value(readTopology(cut));
    expect(t.truncated).toBe('the topology matrix of 4 GPUs is cut after the row of GPU0');
    expect(t.kind).toBe('mixed');
  });

  it('reads the NIC columns of each GPU, by the NIC legend names', () => {
    const t = value(readTopology(fixture('nvidia-smi/topo-8-check-env-tabs.txt')));
    expect(t.nics).toEqual(['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3']);
    expect(t.nicLinks[0]).toEqual(['PIX', 'NODE', 'SYS', 'SYS']);
    expect(t.nicLinks[7]).toEqual(['SYS', 'SYS', 'NODE', 'PIX']);
    const old = value(readTopology(fixture('nvidia-smi/topo-4-old-mlx-column.txt')));
    expect(old.nics).toEqual(['mlx5_bond_0']);
    expect(old.nicLinks.map((r) => r[0])).toEqual(['PHB', 'PHB', 'PIX', 'PIX']);
    expect(old.truncated).toBeNull();
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

describe('topologyRule on a cut matrix', () => {
  const ev = { source: 'process' as const, where: 'nvidia-smi topo -m', excerpt: '' };
  it('is unknown when the hidden pairs decide, and fails on a mixed matrix whatever it hid', () => {
    const cut8 = { result: readTopology(fixture('nvidia-smi/topo-8-cut.txt')), ev };
    expect(topologyRule(cut8, 'nvlink', true)).toMatchObject({
      status: 'fail',
      found: expect.stringContaining('cut inside the row of GPU5'),
    });
    expect(topologyRule(cut8, 'nvlink', true).found).not.toMatch(/^nvlink|^unknown$/);
    const mixed = fixture('nvidia-smi/topo-4-nv12-pairs-tabs.txt').split('\n').slice(0, 2).join('\n');
    expect(topologyRule({ result: readTopology(mixed), ev }, 'nvlink', true)).toMatchObject({
      status: 'fail',
      found: 'mixed (by the links shown; the topology matrix of 4 GPUs is cut after the row of GPU0)',
    });
  });
});

describe('a noheader query CSV read with the invocation that printed it', () => {
  const gpuQuery = [
    'nvidia-smi',
    '--query-gpu=uuid,memory.total,memory.used,index,name',
    '--format=csv,noheader,nounits',
  ];
  it.each([
    'nvidia-smi/query-gpu-noheader-nounits-asked-order.csv',
    'nvidia-smi/query-gpu-noheader-units-asked-order.csv',
  ])('maps the columns of %s to the fields the invocation asked for', (file) => {
    const inv = value(readGpus(fixture(file), { query: gpuQuery }));
    expect(inv.count).toBe(2);
    expect(inv.gpus[0]).toMatchObject({
      index: 0,
      name: 'NVIDIA H100 80GB HBM3',
      uuid: 'GPU-8f6c1b7e-3a51-4f0e-9c43-2b1d6e9a7f10',
      memoryTotalMiB: 81559,
      memoryUsedMiB: 70211,
    });
    // without the invocation, memory is never guessed from position
    expect(value(readGpus(fixture(file))).gpus[0].memoryUsedMiB).toBeNull();
  });

  it('maps a compute-apps CSV in the order its invocation asked for', () => {
    const query = [
      'nvidia-smi',
      '--query-compute-apps=used_memory,pid,gpu_uuid,process_name',
      '--format=csv,noheader',
    ];
    const r = readProcesses(fixture('nvidia-smi/query-apps-noheader-asked-order.csv'), { query });
    expect(value(r).apps).toEqual([
      expect.objectContaining({ pid: 48211, usedMemoryMiB: 70198, processName: 'python3' }),
    ]);
  });

  it('does not take a noheader output holding no row for an empty list', () => {
    const query = ['nvidia-smi', '--query-compute-apps=pid,used_memory', '--format=csv,noheader'];
    expect(readProcesses('WARNING: infoROM is corrupted at gpu 0000:01:00.0\n', { query }).kind).not.toBe(
      'value',
    );
    expect(readGpus('WARNING: infoROM is corrupted at gpu 0000:01:00.0\n', { query: gpuQuery }).kind).toBe(
      'unreadable',
    );
  });
});
