// `npm run bench:sim`: measures how far the simulator goes on one core: how many concurrent streams it
// holds on schedule, and how many tokens/s it emits in its fastest mode (fixed profile, no delays).
// The simulator runs in its own process (one Node thread = one core); this process only reads.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
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

async function startSim(args: string[]): Promise<SimProc> {
  const child = spawn(process.execPath, [SELF, '--serve', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
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
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

/** One streaming completion; resolves with the number of SSE events and the gaps between them (ms). */
function stream(url: string, maxTokens: number, gaps: number[] | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: 'm', prompt: 'hello world', max_tokens: maxTokens, stream: true });
    const req = http.request(
      `${url}/v1/completions`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let events = 0;
        let last = 0;
        res.on('data', (d: Buffer) => {
          const now = performance.now();
          if (gaps && last > 0) gaps.push(now - last);
          last = now;
          for (let i = d.indexOf('\n\n'); i >= 0; i = d.indexOf('\n\n', i + 2)) events++;
        });
        res.on('end', () => resolve(events));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

async function concurrentStreams(n: number, itlMs: number, tokens: number): Promise<void> {
  const sim = await startSim(['--ttft-ms', '0', '--itl-ms', String(itlMs)]);
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
    await Promise.all(all);
    clearInterval(sampler);
    const wallS = (performance.now() - t0) / 1000;
    const cpu1 = cpuSeconds(sim.child.pid!);
    const idealS = (tokens * itlMs) / 1000;
    const cpuS = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : Number.NaN;
    console.log(
      `concurrent streams: ${n} streams x ${tokens} tokens at itl ${itlMs} ms: server-side peak ${peak} running at once; all ${n} completed in ${wallS.toFixed(2)} s (ideal ${idealS.toFixed(2)} s); ` +
        `client-seen chunk gap p50 ${pct(gaps, 50).toFixed(1)} ms, p99 ${pct(gaps, 99).toFixed(1)} ms; ` +
        `simulator used ${cpuS.toFixed(2)} CPU-s (${((cpuS / wallS) * 100).toFixed(0)}% of one core)`,
    );
  } finally {
    sim.child.kill('SIGTERM');
  }
}

async function tokensPerSecond(
  concurrency: number,
  tokensPerChunk: number,
  durationS: number,
): Promise<void> {
  const sim = await startSim([
    '--ttft-ms',
    '0',
    '--itl-ms',
    '0',
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
    const rate = (g1 - g0) / wallS;
    const cpuS = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : Number.NaN;
    const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
    console.log(
      `emitted tokens: ${fmt(rate)} tokens/s wall-clock (${fmt(rate / tokensPerChunk)} chunks/s) with ${concurrency} streams, ` +
        `${tokensPerChunk} token(s) per chunk, over ${wallS.toFixed(1)} s; simulator at ${((cpuS / wallS) * 100).toFixed(0)}% of one core ` +
        `=> ${fmt((g1 - g0) / cpuS)} tokens per simulator CPU-second (one-core capacity)`,
    );
    sim.child.kill('SIGTERM');
    await Promise.allSettled(workers);
  } finally {
    if (sim.child.exitCode === null) sim.child.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  console.log(
    'bench:sim — simulator in its own process (one core); fixed profile, vllm flavour, /v1/completions SSE',
  );
  console.log(
    `machine: ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} (a busy machine lowers wall-clock figures; CPU-normalised ones are the capacity)`,
  );
  await concurrentStreams(2000, 100, 20);
  await concurrentStreams(4000, 100, 20);
  await tokensPerSecond(256, 1, 5);
  await tokensPerSecond(256, 4, 5);
  agent.destroy();
}

if (process.argv.includes('--serve')) await serve(process.argv.slice(process.argv.indexOf('--serve') + 1));
else await main();
