// `npm run bench:sim`: measures how far the simulator goes on one core: how many concurrent streams it
// holds on schedule, how many tokens/s it emits in its fastest mode (fixed profile, no delays), and
// its CPU per SSE event when every event is its own write. The simulator runs in its own process
// (one Node thread = one core); this process only reads. `-- --baseline DIR` also measures another
// build (DIR = that build's dist/, e.g. of an older commit) in the same run and prints the ratios.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePrometheusText } from '../engines/prometheus.js';
import { startSimulator } from '../sim/index.js';

const SELF = fileURLToPath(import.meta.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

interface SimProc {
  child: ChildProcess;
  url: string;
}

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

async function startSim(script: string, args: string[]): Promise<SimProc> {
  const child = spawn(process.execPath, [script, '--serve', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /benchgate sim: .* (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
      if (out.length > 1_000_000) out = out.slice(-10_000);
    });
    child.on('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  child.stdout!.resume();
  return { child, url };
}

/** CPU seconds (user + system) the process has used, from /proc (Linux). */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

async function metric(url: string, name: string): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    http
      .get(`${url}/metrics`, { agent }, (res) => {
        let t = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          t += d;
        });
        res.on('end', () => resolve(t));
      })
      .on('error', reject);
  });
  return parsePrometheusText(text).samples.find((x) => x.name === name)?.value ?? Number.NaN;
}

/**
 * One streaming completion over a raw socket (a pre-built request, no HTTP parsing, so the reading
 * side stays cheap next to the simulator); resolves with the number of SSE events seen, and pushes
 * the gaps between reads (ms) into `gaps`.
 */
function stream(url: string, maxTokens: number, gaps: number[] | null): Promise<number> {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ model: 'm', prompt: 'hello world', max_tokens: maxTokens, stream: true });
  const request = `POST /v1/completions HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    let events = 0;
    let last = 0;
    let endsInOneNewline = false;
    let tail = '';
    socket.on('data', (d: Buffer) => {
      const now = performance.now();
      if (gaps && last > 0) gaps.push(now - last);
      last = now;
      // an event ends at a blank line, which may be cut in two by the reads
      if (endsInOneNewline && d[0] === 10) events++;
      for (let i = d.indexOf('\n\n'); i >= 0; i = d.indexOf('\n\n', i + 2)) events++;
      endsInOneNewline = d[d.length - 1] === 10 && d[d.length - 2] !== 10;
      tail = (tail + d.subarray(-5).toString('latin1')).slice(-5);
      if (tail === '0\r\n\r\n') {
        // the last chunk of the chunked body: the response is complete
        socket.destroy();
        resolve(events);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(events));
  });
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

const fmt = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');

/** One measured build: this one, or a baseline dist/ given with --baseline. */
interface Build {
  label: string;
  script: string;
}

interface ConcurrentFigures {
  peakRunning: number;
  wallS: number;
  gapP50Ms: number;
  gapP99Ms: number;
  cpuS: number;
  cpuUsPerEvent: number;
}

async function concurrentStreams(
  build: Build,
  n: number,
  itlMs: number,
  tokens: number,
): Promise<ConcurrentFigures> {
  const sim = await startSim(build.script, ['--ttft-ms', '0', '--itl-ms', String(itlMs)]);
  try {
    const gaps: number[] = [];
    let peak = 0;
    const cpu0 = cpuSeconds(sim.child.pid!);
    const t0 = performance.now();
    const all = Array.from({ length: n }, () => stream(sim.url, tokens, gaps));
    const sampler = setInterval(async () => {
      const running = await metric(sim.url, 'vllm:num_requests_running').catch(() => 0);
      peak = Math.max(peak, running);
    }, 200);
    const events = (await Promise.all(all)).reduce((a, b) => a + b, 0);
    clearInterval(sampler);
    const wallS = (performance.now() - t0) / 1000;
    const cpu1 = cpuSeconds(sim.child.pid!);
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

interface RateFigures {
  tokensPerS: number;
  tokensPerCpuS: number;
  chunksPerCpuS: number;
}

/** Streams back to back from `concurrency` workers; the simulator's own counter gives the tokens. */
async function emittedTokens(
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
    const cpu0 = cpuSeconds(sim.child.pid!);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, durationS * 1000));
    const g1 = await metric(sim.url, 'vllm:generation_tokens_total');
    const cpu1 = cpuSeconds(sim.child.pid!);
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
  agent.destroy();
}

if (process.argv.includes('--serve')) await serve(process.argv.slice(process.argv.indexOf('--serve') + 1));
else await main();
