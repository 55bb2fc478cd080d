import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalHost } from '../../hosts/local-host.js';
import { ctxFor } from '../test-support.js';
import { checkLeftovers, isServerCommand } from './leftovers.js';

const host = new LocalHost();
const started: ChildProcess[] = [];
const strayPids: number[] = [];

afterEach(() => {
  for (const c of started.splice(0)) c.kill('SIGKILL');
  for (const p of strayPids.splice(0)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

async function until<T>(fn: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v !== null) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('leftover processes', () => {
  it('fails naming a process outside the server tree that also listens on the port', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    try {
      // an orphaned stray (reparented away from this process) listening on the same port over IPv6 loopback
      const sh = spawn('sh', [
        '-c',
        `${process.execPath} -e "require('net').createServer().listen(${port}, '::1')" >/dev/null 2>&1 & echo $!`,
      ]);
      started.push(sh);
      const stray = await new Promise<number>((resolve) =>
        sh.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
      );
      strayPids.push(stray);
      if (sh.exitCode === null) await new Promise((r) => sh.once('exit', r));
      await until(
        async () => ((await host.listeningPids(port)).includes(stray) ? true : null),
        'the stray to listen',
      );
      const ctx = ctxFor({ target: { url: `http://127.0.0.1:${port}` } }, host);
      ctx.server = await host.processInfo(process.pid);
      const [f] = await checkLeftovers(ctx);
      expect(f.status).toBe('fail');
      expect(f.required).toBe(true);
      expect(f.found).toContain(`PID ${stray} also listen on port ${port} outside the server's process tree`);
    } finally {
      srv.close();
    }
  });

  it('warns about defunct children of the server', async () => {
    // sh forks a short sleep then execs a long one that never reaps it: a zombie grandchild of this process
    const parent = spawn('sh', ['-c', 'sleep 0.05 & exec sleep 30']);
    started.push(parent);
    const ctx = ctxFor({ target: { url: 'http://127.0.0.1:9' } }, host);
    ctx.server = await host.processInfo(process.pid);
    const f = await until(async () => {
      const [x] = await checkLeftovers(ctx);
      return x.found?.includes('defunct') ? x : null;
    }, 'a zombie');
    expect(f.status).toBe('warn');
    expect(f.evidence.some((e) => e.excerpt.startsWith('Z'))).toBe(true);
  });
});

/** Starts an orphan (its shell parent exits at once) running `code` in Node; returns its PID. */
async function orphan(code: string): Promise<number> {
  const sh = spawn('sh', ['-c', `${process.execPath} -e '${code}' >/dev/null 2>&1 & echo $!`]);
  started.push(sh);
  const pid = await new Promise<number>((resolve) =>
    sh.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
  );
  strayPids.push(pid);
  return pid;
}

/** A directory holding a stub `nvidia-smi` that prints `apps` for the compute-apps query. */
function stubNvidiaSmi(apps: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'bg-leftover-nvsmi-'));
  writeFileSync(join(dir, 'apps.csv'), apps);
  const script = `#!/bin/sh\ncase "$*" in\n  *--query-compute-apps=*) cat "$(dirname "$0")/apps.csv" ;;\n  *) exit 2 ;;\nesac\n`;
  writeFileSync(join(dir, 'nvidia-smi'), script);
  chmodSync(join(dir, 'nvidia-smi'), 0o755);
  return dir;
}

describe('engine processes and GPU holders outside the server tree', () => {
  const originalPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = originalPath;
  });
  const GPU0 = 'GPU-8f6c1b7e-3a51-4f0e-9c43-2b1d6e9a7f10';
  const GPU1 = 'GPU-1c2d3e4f-5a6b-7c8d-9e0f-a1b2c3d4e5f6';

  it('fails on an orphaned VLLM::EngineCore, naming its PID, state, parent and age', async () => {
    const pid = await orphan('process.title = "VLLM::EngineCore"; setInterval(() => {}, 1000)');
    const ctx = ctxFor({ target: { url: 'http://127.0.0.1:9' } }, host);
    ctx.server = await host.processInfo(process.pid);
    const f = await until(async () => {
      const [x] = await checkLeftovers(ctx);
      return x.found?.includes(`PID ${pid} (VLLM::EngineCore`) ? x : null;
    }, 'the orphaned engine core to be listed');
    expect(f.status).toBe('fail');
    expect(f.required).toBe(true);
    expect(f.found).toMatch(
      new RegExp(
        `PID ${pid} \\(VLLM::EngineCore[^,]*, state \\w+, parent \\d+, up \\d+s\\) an engine worker whose server is gone`,
      ),
    );
  });

  it("fails on a process holding the server's GPU, whatever its name, and not on one holding another GPU", async () => {
    const holder = await orphan('setInterval(() => {}, 1000)');
    const elsewhere = await orphan('setInterval(() => {}, 1000)');
    process.env.PATH = `${stubNvidiaSmi(
      [
        `${process.pid}, ${GPU0}, 39870, node`,
        `${holder}, ${GPU0}, 70211, python3`,
        `${elsewhere}, ${GPU1}, 1024, python3`,
      ].join('\n'),
    )}:${originalPath}`;
    const ctx = ctxFor({ target: { url: 'http://127.0.0.1:9' } }, host);
    ctx.server = await host.processInfo(process.pid);
    const f = await until(async () => {
      const [x] = await checkLeftovers(ctx);
      return x.found?.includes(`PID ${holder} (`) ? x : null;
    }, 'the GPU holder to be listed');
    expect(f.status).toBe('fail');
    expect(f.found).toMatch(
      new RegExp(`PID ${holder} \\(.*state \\w+, parent \\d+, up \\d+s\\) holds ${GPU0}`),
    );
    expect(f.found).not.toContain(`PID ${elsewhere} (`);
  });

  it('does not judge GPU holders when nvidia-smi shows PIDs of another namespace and none of the server', async () => {
    process.env.PATH = `${stubNvidiaSmi(`999999, ${GPU0}, 70211, python3`)}:${originalPath}`;
    const ctx = ctxFor({ target: { url: 'http://127.0.0.1:9' } }, host);
    ctx.server = await host.processInfo(process.pid);
    const [f] = await checkLeftovers(ctx);
    expect(f.found).not.toContain('PID 999999');
    expect(f.found).toContain("GPU holders not checked: nvidia-smi lists PIDs this host's ps does not show");
  });
});

describe('what counts as another inference server', () => {
  it('counts a running server but not a build job or compiler that names one', async () => {
    const idle = ['-e', 'setInterval(() => {}, 1000)', '--'];
    // argv0 is what ps shows first: a cmake build of llama-server, a compiler writing it, a real server
    const build = spawn(process.execPath, [...idle, '--build', '.', '--target', 'llama-server'], {
      argv0: 'cmake',
    });
    const compile = spawn(process.execPath, [...idle, '-o', 'bin/llama-server', 'server.cpp'], {
      argv0: '/usr/bin/c++',
    });
    const server = spawn(process.execPath, [...idle, '-m', 'sglang.launch_server', '--port', '1'], {
      argv0: 'python3',
    });
    started.push(build, compile, server);
    const ctx = ctxFor({ target: { url: 'http://127.0.0.1:9' } }, host);
    // `found` lists every other server's PID (evidence keeps only the first five)
    const listed = (text: string | undefined, pid: number | undefined) =>
      new RegExp(`\\b${pid}\\b`).test(text ?? '');
    const f = await until(async () => {
      const [x] = await checkLeftovers(ctx);
      return listed(x.found, server.pid) ? x : null;
    }, 'the server to be seen');
    expect(listed(f.found, build.pid)).toBe(false);
    expect(listed(f.found, compile.pid)).toBe(false);
  });

  it('counts only the server processes themselves, not commands whose arguments name an engine (issue 24 item 14)', () => {
    const servers = [
      'python3 -m sglang.launch_server --model-path m --port 30000',
      '/usr/bin/python3.11 -u -m vllm.entrypoints.openai.api_server --model m',
      '/opt/venv/bin/vllm serve meta-llama/Llama-3.1-8B-Instruct',
      'sglang serve --model-path m',
      'python /src/sglang/python/sglang/launch_server.py --model-path m',
      '/build/bin/llama-server -m tiny.gguf --port 8080',
      'text-generation-launcher --model-id m',
    ];
    const others = [
      'grep --color=auto sglang.launch_server',
      'tail -f /var/log/sglang serve.log',
      'vim /src/sglang/python/sglang/launch_server.py',
      'less vllm.entrypoints.log',
      'bash -c python -m sglang.launch_server --port 1',
      "python3 -c import sglang.launch_server; print('ok')",
      'node /usr/lib/benchgate/dist/cli/main.js sim --flavor sglang',
      'python3 test_sglang_launch.py',
      'cmake --build . --target llama-server',
    ];
    for (const a of servers) expect(isServerCommand(a), a).toBe(true);
    for (const a of others) expect(isServerCommand(a), a).toBe(false);
  });
});
