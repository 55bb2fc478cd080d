import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalHost } from '../../hosts/local-host.js';
import { ctxFor } from '../test-support.js';
import { checkGpus } from './gpus.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** A directory holding a stub `nvidia-smi` that replays the given fixture files. */
function stubNvidiaSmi(files: { gpus: string; apps: string; topo: string; table?: string }): string {
  const dir = mkdtempSync(join(tmpdir(), 'bg-nvsmi-'));
  writeFileSync(join(dir, 'gpus.csv'), files.gpus);
  writeFileSync(join(dir, 'apps.csv'), files.apps);
  writeFileSync(join(dir, 'topo.txt'), files.topo);
  if (files.table !== undefined) writeFileSync(join(dir, 'table.txt'), files.table);
  const script = `#!/bin/sh
d=$(dirname "$0")
case "$*" in
  *--query-gpu=*) cat "$d/gpus.csv" ;;
  *--query-compute-apps=*) cat "$d/apps.csv" ;;
  "topo -m") cat "$d/topo.txt" ;;
  "") if [ -f "$d/table.txt" ]; then cat "$d/table.txt"; else exit 9; fi ;;
  *) echo "unexpected: $*" >&2; exit 2 ;;
esac
`;
  writeFileSync(join(dir, 'nvidia-smi'), script);
  chmodSync(join(dir, 'nvidia-smi'), 0o755);
  return dir;
}

const fixture = (n: string) => readFileSync(join(FIXTURES, n), 'utf8');
const originalPath = process.env.PATH;

function withPath(dir: string | null): void {
  process.env.PATH = dir ? `${dir}:${originalPath}` : '/nonexistent-bin-dir';
}

describe('GPU check through a stub nvidia-smi on PATH', () => {
  afterAll(() => {
    process.env.PATH = originalPath;
  });

  it("fails naming the leftover processes but not the server's own, and records the PCIe topology", async () => {
    const apps = fixture('apps-8-leftover.csv');
    const uuid0 = apps.split('\n')[0].split(', ')[1];
    // the server (this process) holds GPU0; the fixture's other processes are leftovers
    withPath(
      stubNvidiaSmi({
        gpus: fixture('gpus-8-l40s.csv'),
        apps: `${process.pid}, ${uuid0}, 39870, node\n${apps}`,
        topo: fixture('topo-pcie-8.txt'),
      }),
    );
    const host = new LocalHost();
    const ctx = ctxFor(
      { gpus: { count: 8, model: 'L40S', no_foreign_processes: true, topology: 'pcie' } },
      host,
    );
    ctx.server = await host.processInfo(process.pid);
    const { findings, topology } = await checkGpus(ctx);
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.inventory'].found).toBe('8 × NVIDIA L40S; topology pcie');
    expect(by['gpus.count'].status).toBe('pass');
    expect(by['gpus.model'].status).toBe('pass');
    expect(by['gpus.topology'].status).toBe('pass');
    expect(by['gpus.processes'].status).toBe('fail');
    expect(by['gpus.processes'].found).toContain('PID 51007 ([Not Found], 412 MiB)');
    expect(by['gpus.processes'].found).not.toContain(`PID ${process.pid} `);
    expect(topology).toMatchObject({ kind: 'pcie' });
  });

  it('fails when no process is listed yet memory is in use and no server runs, and fails a wrong topology', async () => {
    withPath(
      stubNvidiaSmi({
        gpus: fixture('gpus-8-h100-mem-in-use.csv'),
        apps: fixture('apps-empty.csv'),
        topo: fixture('topo-pcie-8.txt'),
      }),
    );
    const ctx = ctxFor({
      gpus: { no_foreign_processes: true, topology: 'nvlink', max_memory_used_mib: 1024 },
    });
    const { findings } = await checkGpus(ctx);
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.processes']).toMatchObject({ status: 'fail', required: true });
    expect(by['gpus.processes'].found).toBe(
      'no process listed, yet memory is in use on GPU0 (74120 MiB): another container or namespace holds it',
    );
    expect(by['gpus.memory']).toMatchObject({
      status: 'fail',
      required: true,
      found:
        'GPU0: 74120 MiB in use and no process is visible to nvidia-smi (likely another container or PID namespace)',
    });
    expect(by['gpus.topology']).toMatchObject({ status: 'fail', expected: 'nvlink', found: 'pcie' });
  });

  it('records an NVLink topology even when the plan does not ask about GPUs', async () => {
    withPath(
      stubNvidiaSmi({ gpus: fixture('gpus-8-l40s.csv'), apps: '', topo: fixture('topo-nvlink-8.txt') }),
    );
    const { findings, topology } = await checkGpus(ctxFor({}));
    expect(findings.map((f) => f.id)).toEqual(['gpus.inventory']);
    expect(topology).toMatchObject({ kind: 'nvlink' });
  });

  it('skips with a reason when nvidia-smi is absent and GPUs are not required, fails when they are', async () => {
    withPath(null);
    const skipped = await checkGpus(ctxFor({}));
    expect(skipped.findings[0]).toMatchObject({ id: 'gpus', status: 'skip' });
    expect(skipped.findings[0].found).toContain('nvidia-smi is not available on local');
    const failed = await checkGpus(ctxFor({ gpus: { count: 8 } }));
    expect(failed.findings[0]).toMatchObject({ id: 'gpus', status: 'fail', required: true });
  });

  it('fails naming the 3 processes of a header+MiB compute-apps listing that hold 32 GB', async () => {
    withPath(
      stubNvidiaSmi({
        gpus: fixture('nvidia-smi/query-gpu-header-units.csv'),
        apps: fixture('nvidia-smi/query-apps-header-mib.csv'),
        topo: fixture('nvidia-smi/topo-8-nv18-spaces-ansi.txt'),
      }),
    );
    const { findings, topology } = await checkGpus(
      ctxFor({
        gpus: { count: 8, no_foreign_processes: true, max_memory_used_mib: 1024, topology: 'nvlink' },
      }),
    );
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.inventory'].found).toBe('8 × NVIDIA H100 80GB HBM3; topology nvlink');
    expect(by['gpus.processes']).toMatchObject({ status: 'fail', required: true });
    for (const pid of [731204, 731388, 731390]) expect(by['gpus.processes'].found).toContain(`PID ${pid} `);
    expect(by['gpus.memory']).toMatchObject({
      status: 'fail',
      found: 'GPU0: 32770 MiB; GPU1: 32770 MiB; GPU2: 32770 MiB',
    });
    expect(by['gpus.topology']).toMatchObject({ status: 'pass', found: 'nvlink' });
    expect(topology).toMatchObject({ kind: 'nvlink' });
  });

  it('fails every asked-for fact when neither the CSV query nor the table can be read, saying where to read it', async () => {
    withPath(
      stubNvidiaSmi({
        gpus: '\u0000\u0001garbage',
        apps: '',
        topo: '',
        table: 'NVIDIA-SMI has failed because it could not talk to the driver\n',
      }),
    );
    const { findings } = await checkGpus(ctxFor({ gpus: { count: 8, model: 'H100', topology: 'nvlink' } }));
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.inventory']).toMatchObject({ status: 'fail', required: true });
    expect(by['gpus.inventory'].found).toMatch(/^GPUs unreadable: /);
    expect(by['gpus.inventory'].found).not.toContain('0 ×');
    expect(by['gpus.inventory'].hint).toContain('--query-gpu=');
    expect(by['gpus.count']).toMatchObject({ status: 'fail', required: true });
    expect(by['gpus.model'].status).toBe('fail');
    expect(by['gpus.topology']).toMatchObject({
      status: 'fail',
      found: 'unreadable: the output is empty (got: (empty))',
    });
    // without a gpus section the unread inventory is a warning, not a pass
    const loose = await checkGpus(ctxFor({}));
    expect(loose.findings[0]).toMatchObject({ id: 'gpus.inventory', status: 'warn', required: false });
  });

  it('reads the default table when the CSV query is refused, processes included', async () => {
    withPath(
      stubNvidiaSmi({
        gpus: '',
        apps: '',
        topo: fixture('topo-nvlink-8.txt'),
        table: fixture('nvidia-smi/table-h100-processes.txt'),
      }),
    );
    const { findings } = await checkGpus(ctxFor({ gpus: { count: 2, no_foreign_processes: true } }));
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.inventory'].found).toBe(
      '2 × NVIDIA H100 80GB HBM3; topology nvlink; driver 550.127.08, CUDA 12.4',
    );
    expect(by['gpus.inventory'].evidence[0].where).toBe('nvidia-smi');
    expect(by['gpus.count'].status).toBe('pass');
    expect(by['gpus.processes'].found).toContain('PID 48811 (/usr/bin/python3, 74302 MiB)');
  });

  it('fails memory over the limit on a GPU whose process list is empty, even with a server running (another container)', async () => {
    // the held-out corpus case: 12.8 GiB in use, nvidia-smi lists no process, the plan allows 1,000 MiB
    const gpus = fixture('gpus-8-h100-mem-in-use.csv').replace(', 74120, ', ', 13107, ');
    withPath(stubNvidiaSmi({ gpus, apps: '', topo: fixture('topo-pcie-8.txt') }));
    const ctx = ctxFor({ gpus: { no_foreign_processes: true, max_memory_used_mib: 1000 } });
    ctx.reachable = true;
    const { findings } = await checkGpus(ctx);
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.memory']).toMatchObject({
      status: 'fail',
      required: true,
      expected: '<= 1000 MiB per GPU',
      found:
        'GPU0: 13107 MiB in use and no process is visible to nvidia-smi (likely another container or PID namespace)',
    });
    // which process holds it is unknown while a server runs: the process check only warns
    expect(by['gpus.processes']).toMatchObject({ status: 'warn', required: false });
  });

  it("passes memory the server's own processes hold, and fails the rest", async () => {
    const apps = fixture('apps-8-leftover.csv');
    const uuid0 = apps.split('\n')[0].split(', ')[1];
    withPath(
      stubNvidiaSmi({
        gpus: fixture('gpus-8-h100-mem-in-use.csv'),
        apps: `${process.pid}, ${uuid0}, 73500, node\n`,
        topo: fixture('topo-pcie-8.txt'),
      }),
    );
    const host = new LocalHost();
    const ctx = ctxFor({ gpus: { max_memory_used_mib: 1000 } }, host);
    ctx.server = await host.processInfo(process.pid);
    ctx.reachable = true;
    const ok = Object.fromEntries((await checkGpus(ctx)).findings.map((f) => [f.id, f]));
    expect(ok['gpus.memory']).toMatchObject({ status: 'pass', found: 'within the limit' });
    const strict = ctxFor({ gpus: { max_memory_used_mib: 500 } }, host);
    strict.server = ctx.server;
    strict.reachable = true;
    const over = Object.fromEntries((await checkGpus(strict)).findings.map((f) => [f.id, f]));
    expect(over['gpus.memory']).toMatchObject({ status: 'fail', found: 'GPU0: 620 MiB' });
  });

  it('fails the count as unknown when the default table is cut after GPU1, never "2 GPUs"', async () => {
    withPath(
      stubNvidiaSmi({
        gpus: '',
        apps: '',
        topo: fixture('topo-pcie-8.txt'),
        table: fixture('nvidia-smi/table-570-cut-after-gpu1.txt'),
      }),
    );
    const { findings } = await checkGpus(
      ctxFor({ gpus: { count: 2, model: 'A10G', max_memory_used_mib: 30000, no_foreign_processes: true } }),
    );
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.inventory']).toMatchObject({ status: 'warn' });
    expect(by['gpus.inventory'].found).toMatch(
      /^at least 2 × NVIDIA A10G; topology pcie; driver 570\.172\.08, CUDA 12\.8; the output is cut: /,
    );
    expect(by['gpus.count']).toMatchObject({ status: 'fail', required: true, expected: '2' });
    expect(by['gpus.count'].found).toMatch(
      /^unknown \(truncated\): the output ends after the block of GPU1 .*; 2 GPUs seen$/,
    );
    expect(by['gpus.model'].found).toMatch(/^unknown: the output is cut/);
    expect(by['gpus.memory'].found).toMatch(/^unknown: the output is cut/);
    expect(by['gpus.processes']).toMatchObject({
      status: 'fail',
      found: expect.stringMatching(/^unknown: .*no Processes section/),
    });
  });

  it('reads GPUs and processes from nvidia-smi -q when that is what the host prints', async () => {
    const q = fixture('nvidia-smi/query-q-h100-2gpus.txt');
    withPath(stubNvidiaSmi({ gpus: q, apps: q, topo: fixture('topo-nvlink-8.txt') }));
    const { findings } = await checkGpus(
      ctxFor({ gpus: { count: 2, model: 'H100', no_foreign_processes: true } }),
    );
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.inventory'].found).toBe(
      '2 × NVIDIA H100 80GB HBM3; topology nvlink; driver 570.124.06, CUDA 12.8',
    );
    expect(by['gpus.count'].status).toBe('pass');
    expect(by['gpus.model'].status).toBe('pass');
    expect(by['gpus.processes'].found).toBe(
      'foreign or leftover processes: PID 90211 (/usr/bin/python3, 72010 MiB), PID 91877 (no name, 4 MiB)',
    );
  });

  it("with nvidia-smi -q showing 2 of its 4 attached GPUs, the count is known but the others' model and memory are not", async () => {
    const q = fixture('nvidia-smi/query-q-h100-2gpus.txt').replace(/(Attached GPUs\s+: )2/, '$14');
    withPath(stubNvidiaSmi({ gpus: q, apps: q, topo: fixture('topo-nvlink-8.txt') }));
    const { findings } = await checkGpus(
      ctxFor({ gpus: { count: 4, model: 'H100', max_memory_used_mib: 80000 } }),
    );
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.count']).toMatchObject({ status: 'pass', found: '4' });
    const unseen =
      '2 of 4 GPUs are not shown (4 GPUs attached but 2 shown (cut short, or one GPU selected with -i))';
    expect(by['gpus.model']).toMatchObject({ status: 'fail', found: `unknown: ${unseen}` });
    expect(by['gpus.memory']).toMatchObject({ status: 'fail', found: `unknown: ${unseen}` });
  });

  it('passes idle GPUs (a few MiB, no process) with no server running', async () => {
    withPath(
      stubNvidiaSmi({
        gpus: '',
        apps: '',
        topo: fixture('topo-pcie-8.txt'),
        table: fixture('nvidia-smi/table-515-indented-markdown.txt').replace(
          '2878      G   /usr/lib/xorg/Xorg                  4MiB',
          '',
        ),
      }),
    );
    const { findings } = await checkGpus(
      ctxFor({ gpus: { count: 2, no_foreign_processes: true, max_memory_used_mib: 512 } }),
    );
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.count'].status).toBe('pass');
    expect(by['gpus.memory'].status).toBe('pass');
  });
});
