// The cases `npm run bench:sim` measures on one build's simulator: how many concurrent streams it holds
// on schedule (and its CPU per SSE event doing so), and how many tokens/s it emits streaming back to back.
// Each prints its line and returns its figures, so sim.ts can set two builds side by side.

import { processCpuS } from './child.js';
import { metric, startSim, stream } from './sim-probe.js';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

const fmt = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');

/** One measured build: this one, or a baseline dist/ given with --baseline. */
export interface Build {
  label: string;
  script: string;
}

export interface ConcurrentFigures {
  peakRunning: number;
  wallS: number;
  gapP50Ms: number;
  gapP99Ms: number;
  cpuS: number;
  cpuUsPerEvent: number;
}

/** `n` streams of `tokens` tokens at once, `itlMs` apart; the peak the simulator reports running at once. */
export async function concurrentStreams(
  build: Build,
  n: number,
  itlMs: number,
  tokens: number,
): Promise<ConcurrentFigures> {
  const sim = await startSim(build.script, ['--ttft-ms', '0', '--itl-ms', String(itlMs)]);
  try {
    const gaps: number[] = [];
    let peak = 0;
    const cpu0 = processCpuS(sim.child.pid);
    const t0 = performance.now();
    const all = Array.from({ length: n }, () => stream(sim.url, tokens, gaps));
    const sampler = setInterval(async () => {
      const running = await metric(sim.url, 'vllm:num_requests_running').catch(() => 0);
      peak = Math.max(peak, running);
    }, 200);
    const events = (await Promise.all(all)).reduce((a, b) => a + b, 0);
    clearInterval(sampler);
    const wallS = (performance.now() - t0) / 1000;
    const cpu1 = processCpuS(sim.child.pid);
    const cpuS = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : Number.NaN;
    const f: ConcurrentFigures = {
      peakRunning: peak,
      wallS,
      gapP50Ms: pct(gaps, 50),
      gapP99Ms: pct(gaps, 99),
      cpuS,
      cpuUsPerEvent: (cpuS * 1e6) / events,
    };
    console.log(
      `  [${build.label}] ${n} streams x ${tokens} tokens at itl ${itlMs} ms: server-side peak ${f.peakRunning} running at once; all completed in ${wallS.toFixed(2)} s (ideal ${((tokens * itlMs) / 1000).toFixed(2)} s); ` +
        `client-seen chunk gap p50 ${f.gapP50Ms.toFixed(1)} ms, p99 ${f.gapP99Ms.toFixed(1)} ms; ` +
        `simulator used ${cpuS.toFixed(2)} CPU-s (${((cpuS / wallS) * 100).toFixed(0)}% of one core), ${f.cpuUsPerEvent.toFixed(1)} CPU-us per SSE event incl. connection and request handling`,
    );
    return f;
  } finally {
    sim.child.kill('SIGTERM');
  }
}

export interface RateFigures {
  tokensPerS: number;
  tokensPerCpuS: number;
  chunksPerCpuS: number;
}

/** Streams back to back from `concurrency` workers; the simulator's own counter gives the tokens. */
export async function emittedTokens(
  build: Build,
  concurrency: number,
  itlMs: number,
  tokensPerChunk: number,
  durationS: number,
): Promise<RateFigures> {
  const sim = await startSim(build.script, [
    '--ttft-ms',
    '0',
    '--itl-ms',
    String(itlMs),
    '--tokens-per-chunk',
    String(tokensPerChunk),
  ]);
  try {
    const tokens = 2000;
    let stop = false;
    const worker = async () => {
      while (!stop) await stream(sim.url, tokens, null);
    };
    const workers = Array.from({ length: concurrency }, () => worker());
    await new Promise((r) => setTimeout(r, 500));
    const g0 = await metric(sim.url, 'vllm:generation_tokens_total');
    const cpu0 = processCpuS(sim.child.pid);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, durationS * 1000));
    const g1 = await metric(sim.url, 'vllm:generation_tokens_total');
    const cpu1 = processCpuS(sim.child.pid);
    const wallS = (performance.now() - t0) / 1000;
    stop = true;
    const cpuS = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : Number.NaN;
    const f: RateFigures = {
      tokensPerS: (g1 - g0) / wallS,
      tokensPerCpuS: (g1 - g0) / cpuS,
      chunksPerCpuS: (g1 - g0) / tokensPerChunk / cpuS,
    };
    console.log(
      `  [${build.label}] ${fmt(f.tokensPerS)} tokens/s wall-clock (${fmt(f.tokensPerS / tokensPerChunk)} chunks/s) with ${concurrency} streams, itl ${itlMs} ms, ` +
        `${tokensPerChunk} token(s) per chunk, over ${wallS.toFixed(1)} s; simulator at ${((cpuS / wallS) * 100).toFixed(0)}% of one core ` +
        `=> ${fmt(f.tokensPerCpuS)} tokens (${fmt(f.chunksPerCpuS)} SSE events) per simulator CPU-second (one-core capacity)`,
    );
    sim.child.kill('SIGTERM');
    await Promise.allSettled(workers);
    return f;
  } finally {
    if (sim.child.exitCode === null) sim.child.kill('SIGTERM');
  }
}
