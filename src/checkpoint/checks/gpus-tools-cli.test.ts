import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliNodeArgs } from '../../cli/test-support/cli-argv.js';
import type { SimulatorHandle } from '../../sim/api.js';
import { startSimulator } from '../../sim/index.js';
import type { Finding } from '../finding.js';

// Issue 9's GPU and tool cases end to end: the real CLI (`benchgate check --json`, from source, in its
// own process) against the simulator, on a host whose PATH holds a fake `nvidia-smi` that prints the
// given fixtures, and a real argparse tool.
const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const fixture = (n: string) => readFileSync(join(FIXTURES, n), 'utf8');

/** A directory with a fake nvidia-smi answering the CSV queries, `topo -m` and the plain table. */
function fakeNvidiaSmi(out: { gpus: string; apps: string; topo: string; table?: string }): string {
  const dir = mkdtempSync(join(tmpdir(), 'bg-fake-nvsmi-'));
  for (const [k, v] of Object.entries(out)) writeFileSync(join(dir, `${k}.txt`), v);
  writeFileSync(
    join(dir, 'nvidia-smi'),
    `#!/bin/sh
d=$(dirname "$0")
case "$*" in
  *--query-gpu=*) cat "$d/gpus.txt" ;;
  *--query-compute-apps=*) cat "$d/apps.txt" ;;
  "topo -m") cat "$d/topo.txt" ;;
  "") [ -f "$d/table.txt" ] && cat "$d/table.txt" || exit 9 ;;
  *) exit 2 ;;
esac
`,
  );
  chmodSync(join(dir, 'nvidia-smi'), 0o755);
  return dir;
}

function check(
  planPath: string,
  binDir: string,
): Promise<{ code: number | null; doc: { ok: boolean; findings: Finding[] } }> {
  const child = spawn(process.execPath, [...cliNodeArgs(), 'check', planPath, '--json'], {
    env: { ...process.env, NO_COLOR: '1', PATH: `${binDir}:${process.env.PATH}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, doc: JSON.parse(stdout) })));
}

describe('benchgate check --json with a fake nvidia-smi and a real argparse tool', () => {
  let sim: SimulatorHandle;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bg-gpu-cli-'));
    sim = await startSimulator({ flavor: 'vllm', profile: 'fixed', ttftMs: 5, itlMs: 1, loadTimeS: 0 });
  });
  afterAll(async () => {
    await sim?.close();
  });
  const plan = (name: string, gpus: string, extra = '') => {
    const p = join(dir, name);
    writeFileSync(
      p,
      `target: { url: ${sim.url} }\noutput: ${dir}/results\nexpect: { smoke: false }\ngpus: ${gpus}\n${extra}`,
    );
    return p;
  };
  const byId = (doc: { findings: Finding[] }) => Object.fromEntries(doc.findings.map((f) => [f.id, f]));

  it('fails naming 3 processes holding 32 GB (header + MiB CSV) and reads an 8-GPU NVLink box from a spaced, escaped topo -m', async () => {
    const bin = fakeNvidiaSmi({
      gpus: fixture('nvidia-smi/query-gpu-header-units.csv'),
      apps: fixture('nvidia-smi/query-apps-header-mib.csv'),
      topo: fixture('nvidia-smi/topo-8-nv18-spaces-ansi.txt'),
    });
    const { code, doc } = await check(
      plan('apps.yaml', '{ count: 8, no_foreign_processes: true, topology: nvlink }'),
      bin,
    );
    const by = byId(doc);
    expect(code).toBe(1);
    expect(by['gpus.inventory'].found).toBe('8 × NVIDIA H100 80GB HBM3; topology nvlink');
    expect(by['gpus.topology'].status).toBe('pass');
    expect(by['gpus.processes']).toMatchObject({ status: 'fail', required: true });
    for (const pid of [731204, 731388, 731390]) expect(by['gpus.processes'].found).toContain(`PID ${pid} `);
  });

  it('fails gpus.inventory (not "0 × unknown") when nvidia-smi output cannot be read', async () => {
    const bin = fakeNvidiaSmi({ gpus: '\u0000\u0007\u0001', apps: '', topo: '', table: '' });
    const { code, doc } = await check(plan('unread.yaml', '{ count: 8 }'), bin);
    const by = byId(doc);
    expect(code).toBe(1);
    expect(by['gpus.inventory']).toMatchObject({ status: 'fail', required: true });
    expect(by['gpus.inventory'].found).toContain('GPUs unreadable: the output is binary, not text');
    expect(by['gpus.count'].found).toMatch(/^unreadable: /);
  });

  it('memory over the limit with no process listed (another container) fails the gate, naming the GPU and the figure', async () => {
    const bin = fakeNvidiaSmi({
      gpus: fixture('nvidia-smi/query-gpu-header-units.csv'),
      apps: '',
      topo: fixture('topo-pcie-8.txt'),
    });
    const { code, doc } = await check(
      plan('container.yaml', '{ count: 8, max_memory_used_mib: 1024, topology: pcie }'),
      bin,
    );
    const by = byId(doc);
    expect(by['gpus.memory']).toMatchObject({ status: 'fail', required: true });
    expect(by['gpus.memory'].found).toContain(
      'GPU0: 32770 MiB in use and no process is visible to nvidia-smi (likely another container or PID namespace)',
    );
    expect(code).toBe(1);
  });

  it('fails a tool whose argparse refuses the flag (exit 2), after echoing its command line', async () => {
    const tool = join(dir, 'bench.py');
    writeFileSync(
      tool,
      'import argparse, sys\nprint("+ " + " ".join(sys.argv))\np = argparse.ArgumentParser()\np.add_argument("--num-prompts", type=int)\np.parse_args()\n',
    );
    const bin = fakeNvidiaSmi({
      gpus: fixture('gpus-8-l40s.csv'),
      apps: '',
      topo: fixture('topo-pcie-8.txt'),
    });
    const p = plan(
      'tool.yaml',
      '{ count: 8 }',
      `tools:\n  - path: ${tool}\n    help: "python3 {path} --served-model-name m"\n    accepts: [--served-model-name, --num-p]\n`,
    );
    const { code, doc } = await check(p, bin);
    const by = byId(doc);
    expect(code).toBe(1);
    expect(by['tool.0.flags'].status).toBe('fail');
    expect(by['tool.0.flags'].found).toContain(
      'rejected --served-model-name (bench.py: error: unrecognized arguments: --served-model-name m)',
    );
  });
});
