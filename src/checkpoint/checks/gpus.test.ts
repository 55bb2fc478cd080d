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

  it('warns when no process is listed yet memory is in use, and fails a wrong topology', async () => {
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
    expect(by['gpus.processes'].status).toBe('warn');
    expect(by['gpus.processes'].found).toContain('GPU0 (74120 MiB)');
    expect(by['gpus.memory']).toMatchObject({ status: 'fail', found: 'GPU0: 74120 MiB' });
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
      found: 'GPU0: 32770 MiB, GPU1: 32770 MiB, GPU2: 32770 MiB',
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

  it('in a container (no processes listed, memory in use by a running server) memory attribution is unknown, not foreign', async () => {
    withPath(
      stubNvidiaSmi({
        gpus: fixture('gpus-8-h100-mem-in-use.csv'),
        apps: '',
        topo: fixture('topo-pcie-8.txt'),
      }),
    );
    const ctx = ctxFor({ gpus: { no_foreign_processes: true, max_memory_used_mib: 1024 } });
    ctx.reachable = true;
    const { findings } = await checkGpus(ctx);
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['gpus.memory']).toMatchObject({ status: 'warn', required: false });
    expect(by['gpus.memory'].found).toMatch(
      /^unknown: GPU0 uses 74120 MiB in all, but nvidia-smi lists no processes/,
    );
    expect(by['gpus.processes']).toMatchObject({ status: 'warn', required: false });
  });
});
