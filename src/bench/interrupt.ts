// `npm run bench:interrupt`: how long the first Ctrl-C of `bench` takes to end the process, against a
// server that froze mid-level (the simulator in its own process, SIGSTOPped once records exist: it
// accepts connections and answers nothing) and against a busy one (every step 40 times slower), in one
// thread and over two worker threads. Prints the time from SIGINT to exit per case; asserts nothing
// (src/cli/commands/bench-interrupt.test.ts proves the behaviour).

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(
  new URL(`../cli/main.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url),
);
const cli = (args: string[]) =>
  spawn(process.execPath, [...process.execArgv, MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', BENCHGATE_STORE: 'off' },
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function simUrl(sim: ChildProcess): Promise<string> {
  let out = '';
  return new Promise((resolve) =>
    sim.stdout?.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+?) /.exec(out);
      if (m) resolve(m[1]!);
    }),
  );
}

function recordsWritten(out: string): boolean {
  const [run] = readdirSync(out);
  const f = run ? join(out, run, 'requests.jsonl') : '';
  return run !== undefined && existsSync(f) && readFileSync(f, 'utf8').length > 0;
}

/** One case: the ms from SIGINT to the exit of `bench`, and its exit code. */
async function measure(o: {
  frozen: boolean;
  workers: number;
}): Promise<{ ms: number; code: number | null }> {
  const sim = cli(['sim', '--port', '0', '--load-time', '0', ...(o.frozen ? [] : ['--fault', 'slow=40'])]);
  const out = mkdtempSync(join(tmpdir(), 'bg-bench-interrupt-'));
  try {
    const url = await simUrl(sim);
    const level = ['--concurrency', '8', '--requests', '2000', '--output-tokens', '256'];
    const bench = cli(['bench', '--url', url, ...level, '--workers', String(o.workers), '--out', out]);
    let err = '';
    bench.stderr?.on('data', (c) => {
      err += c;
    });
    const exited = new Promise<number | null>((r) => bench.on('close', (c) => r(c)));
    if (o.frozen) {
      while (!recordsWritten(out)) await sleep(100);
      sim.kill('SIGSTOP');
      await sleep(500);
    } else {
      while (!/^level 1\/1 /m.test(err)) await sleep(100);
      await sleep(3000);
    }
    const at = performance.now();
    bench.kill('SIGINT');
    const code = await exited;
    return { ms: performance.now() - at, code };
  } finally {
    sim.kill('SIGCONT');
    sim.kill('SIGKILL');
    rmSync(out, { recursive: true, force: true });
  }
}

console.log(
  `benchgate bench:interrupt — node ${process.version}; bench at concurrency 8, 256 tokens per request`,
);
console.log('server                  threads  SIGINT → exit ms  exit code');
for (const frozen of [true, false])
  for (const workers of [1, 2]) {
    const r = await measure({ frozen, workers });
    const what = frozen ? 'frozen (SIGSTOP)' : 'busy (slow=40)';
    console.log(
      `${what.padEnd(22)}  ${String(workers).padStart(7)}  ${r.ms.toFixed(0).padStart(16)}  ${r.code}`,
    );
  }
