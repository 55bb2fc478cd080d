// Starts the embedded simulator as a child process (`benchgate sim`), so its event loop and CPU are
// not billed to the client's self-check: an in-process simulator would make every level look
// client-limited. Resolves once the simulator answers /health. The process is started through the local
// host (only hosts/ runs processes) and probed through the target client (only client/ speaks HTTP).

import { fileURLToPath } from 'node:url';
import { createTargetHttp } from '../client/target-http.js';
import { monoNowMs } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import { LocalHost } from '../hosts/local-host.js';
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
  // its own process group (the host's spawn): a terminal Ctrl-C reaches benchgate, which then stops the
  // simulator itself after writing what is complete (otherwise the simulator would cut the in-flight streams)
  // the engine environment (SGLANG_ENABLE_SPEC_V2, VLLM_SERVER_DEV_MODE) reaches the child as real env
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  let firstError = '';
  let onUrl: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => {
    onUrl = resolve;
  });
  const child = await new LocalHost().spawn([process.execPath, ...cliCommand(), ...simArgv(opts)], {
    env,
    onLine: (line) => {
      const m = line.match(/listening on (https?:\/\/[^\s]+)/);
      if (m) onUrl(m[1]);
      else if (!firstError && /^benchgate/.test(line) && !/listening/.test(line)) firstError = line;
    },
  });
  // benchgate exiting for any reason takes its simulator down with it (a synchronous kill of the group)
  const killOnExit = (): void => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', killOnExit);
  let timer: NodeJS.Timeout | undefined;
  const fail = (message: string): never => {
    killOnExit();
    process.off('exit', killOnExit);
    throw new BenchgateError('BG_E_SIM', message);
  };
  const deadline = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), READY_TIMEOUT_MS);
  });
  const first = await Promise.race([listening, child.exited, deadline]);
  if (first === 'timeout') fail(`the embedded simulator did not start within ${READY_TIMEOUT_MS / 1000} s.`);
  if (typeof first !== 'string')
    fail(`the embedded simulator exited (${first.code}) before it listened: ${firstError}`);
  const url = first as string;
  const http = createTargetHttp(url, { timeoutMs: 2000 });
  const until = monoNowMs() + READY_TIMEOUT_MS;
  while ((await http.request('/health')).status !== 200) {
    if (monoNowMs() > until)
      fail(`the embedded simulator at ${url} did not become healthy within ${READY_TIMEOUT_MS / 1000} s.`);
    await new Promise((r) => setTimeout(r, 50));
  }
  clearTimeout(timer);
  let closed = false;
  return {
    url,
    port: Number(new URL(url).port),
    close: async () => {
      if (!closed) {
        closed = true;
        await child.kill('SIGTERM');
        const hard = setTimeout(() => void child.kill('SIGKILL'), 5000);
        await child.exited;
        clearTimeout(hard);
      }
      process.off('exit', killOnExit);
    },
  };
}
