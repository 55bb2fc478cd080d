// Starts the embedded simulator as a child process (`benchgate sim`), so its event loop and CPU are
// not billed to the client's self-check: an in-process simulator would make every level look
// client-limited. Resolves once the simulator answers /health.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BenchgateError } from '../core/errors.js';
import type { SimulatorHandle, SimulatorOptions } from '../sim/api.js';

const READY_TIMEOUT_MS = 60_000;

function simArgv(o: SimulatorOptions): string[] {
  const a = [
    'sim',
    '--host',
    o.host ?? '127.0.0.1',
    '--port',
    String(o.port ?? 0),
    '--load-time',
    String(o.loadTimeS ?? 0),
  ];
  if (o.flavor) a.push('--flavor', o.flavor);
  if (o.profile) a.push('--profile', o.profile);
  if (o.timeScale !== undefined) a.push('--time-scale', String(o.timeScale));
  if (o.ttftMs !== undefined) a.push('--ttft-ms', String(o.ttftMs));
  if (o.itlMs !== undefined) a.push('--itl-ms', String(o.itlMs));
  if (o.tokensPerChunk !== undefined) a.push('--tokens-per-chunk', String(o.tokensPerChunk));
  if (o.seed !== undefined) a.push('--seed', String(o.seed));
  if (o.logFile) a.push('--log-file', o.logFile);
  for (const f of o.faults ?? []) a.push('--fault', f);
  return [...a, ...(o.engineArgs ?? [])];
}

/** The CLI entry of this build: dist/cli/main.js, or src/cli/main.ts run through tsx. */
function cliCommand(): string[] {
  const main = new URL('../cli/main.js', import.meta.url);
  if (import.meta.url.endsWith('.ts')) {
    return [
      '--import',
      import.meta.resolve('tsx'),
      fileURLToPath(new URL('../cli/main.ts', import.meta.url)),
    ];
  }
  return [fileURLToPath(main)];
}

export async function startSimulatorProcess(opts: SimulatorOptions = {}): Promise<SimulatorHandle> {
  // its own process group: a terminal Ctrl-C reaches benchgate, which then stops the simulator itself
  // after writing what is complete (otherwise the simulator would cut the in-flight streams first)
  // the engine environment (SGLANG_ENABLE_SPEC_V2, VLLM_SERVER_DEV_MODE) reaches the child as real env
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = spawn(process.execPath, [...cliCommand(), ...simArgv(opts)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env,
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let out = '';
  let err = '';
  child.stderr?.on('data', (c) => {
    if (err.length < 4000) err += c;
  });
  const exited = new Promise<{ code: number | null }>((r) => child.on('exit', (code) => r({ code })));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new BenchgateError(
          'BG_E_SIM',
          `the embedded simulator did not start within ${READY_TIMEOUT_MS / 1000} s.`,
        ),
      );
    }, READY_TIMEOUT_MS);
    child.stdout?.on('data', (c) => {
      out += c;
      const m = out.match(/listening on (https?:\/\/[^\s]+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(
        new BenchgateError(
          'BG_E_SIM',
          `the embedded simulator exited (${code}) before it listened: ${err.trim().split('\n')[0] ?? ''}`,
        ),
      );
    });
  });
  child.stdout?.resume(); // keep draining its log lines
  const until = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ok = await fetch(`${url}/health`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new BenchgateError(
        'BG_E_SIM',
        `the embedded simulator at ${url} did not become healthy within ${READY_TIMEOUT_MS / 1000} s.`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port: Number(new URL(url).port),
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
      process.off('exit', killOnExit);
    },
  };
}
