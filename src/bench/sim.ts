// `npm run bench:sim`: measures how far the simulator goes on one core: how many concurrent streams it
// holds on schedule, how many tokens/s it emits in its fastest mode (fixed profile, no delays), and
// its CPU per SSE event when every event is its own write. The simulator runs in its own process
// (one Node thread = one core); this process only reads. `-- --baseline DIR` also measures another
// build (DIR = that build's dist/, e.g. of an older commit) in the same run and prints the ratios.
// The cases are in sim-cases.ts, the cheap reading side in sim-probe.ts; this file is the entry and,
// with --serve, the child that serves the simulator.

import { existsSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../sim/index.js';
import { type Build, concurrentStreams, emittedTokens } from './sim-cases.js';
import { closeProbeConnections } from './sim-probe.js';

const SELF = fileURLToPath(import.meta.url);

/** Child mode: serve the simulator (fixed profile, vllm flavour) and print its URL. */
async function serve(args: string[]): Promise<void> {
  const num = (flag: string) => Number(args[args.indexOf(flag) + 1]);
  const h = await startSimulator({
    flavor: 'vllm',
    profile: 'fixed',
    loadTimeS: 0,
    ttftMs: num('--ttft-ms'),
    itlMs: num('--itl-ms'),
    tokensPerChunk: args.includes('--tokens-per-chunk') ? num('--tokens-per-chunk') : 1,
  });
  await h.ready;
  console.log(`benchgate sim: listening on ${h.url}`);
  process.once('SIGTERM', () => void h.close());
  await h.exited;
}

/** Runs one case for every build and prints the ratio of this build to the baseline. */
async function compare<T>(
  title: string,
  builds: Build[],
  run: (b: Build) => Promise<T>,
  ratios: { name: string; of: (f: T) => number; lowerIsBetter?: boolean }[],
): Promise<void> {
  console.log(title);
  const figures: T[] = [];
  for (const b of builds) figures.push(await run(b));
  if (figures.length < 2) return;
  const parts = ratios.map((r) => {
    const x = r.of(figures[0]) / r.of(figures[1]);
    return `${r.name} ${(r.lowerIsBetter ? 1 / x : x).toFixed(2)}x`;
  });
  console.log(`  => this build vs baseline: ${parts.join(', ')}`);
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--baseline');
  const builds: Build[] = [{ label: 'this build', script: SELF }];
  if (at >= 0) {
    const dir = process.argv[at + 1];
    if (!dir) throw new Error('Expected a dist/ directory after --baseline.');
    const script = resolve(dir, 'bench/sim.js');
    if (!existsSync(script))
      throw new Error(`Expected ${script} (a built dist/ of benchgate) for --baseline.`);
    builds.push({ label: 'baseline', script });
  }
  console.log(
    'bench:sim — simulator in its own process (one core); fixed profile, vllm flavour, /v1/completions SSE',
  );
  console.log(
    `machine: ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} (a busy machine lowers wall-clock figures; CPU-normalised ones are the capacity)`,
  );
  if (builds.length > 1) console.log(`baseline: ${builds[1].script}`);
  // each stream outlasts the client's ramp of opening n connections, so all n can run at once
  for (const [n, tokens] of [
    [2000, 60],
    [4000, 120],
  ]) {
    await compare(
      `concurrent streams (${n}, each lasting ${tokens / 10} s):`,
      builds,
      (b) => concurrentStreams(b, n, 100, tokens),
      [{ name: 'CPU per event', of: (f) => f.cpuUsPerEvent, lowerIsBetter: true }],
    );
  }
  for (const tpc of [1, 4]) {
    await compare(
      `fastest mode (itl 0), ${tpc} token(s) per chunk:`,
      builds,
      (b) => emittedTokens(b, 256, 0, tpc, 5),
      [
        { name: 'tokens per CPU-s', of: (f) => f.tokensPerCpuS },
        { name: 'wall-clock tokens/s', of: (f) => f.tokensPerS },
      ],
    );
  }
  await compare(
    'one SSE event per write (itl 1 ms, saturated: every stream gets one event per loop run):',
    builds,
    (b) => emittedTokens(b, 256, 1, 1, 5),
    [{ name: 'events per CPU-s', of: (f) => f.chunksPerCpuS }],
  );
  closeProbeConnections();
}

if (process.argv.includes('--serve')) await serve(process.argv.slice(process.argv.indexOf('--serve') + 1));
else await main();
