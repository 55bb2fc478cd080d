// `npm run bench:client`: how fast and how exact the streaming client is. Prints figures, asserts nothing.
// Part 1 (client-cpu.ts): client CPU per streamed token over each transport beside the socket floors,
// tokens/s and memory per in-flight stream, against a pre-rendered stream server in another process.
// Part 2 (client-accuracy.ts): TTFT and ITL error against the simulator's `fixed` profile (server-side
// truth). Part 3 (client-workers.ts): client capacity and TTFT error by worker threads.
// argv: [all|cpu|accuracy|workers] (default all).

import { loadavg } from 'node:os';
import { loadUndiciTransport } from '../client/stream-request.js';
import { siblingScript, startChild } from './child.js';
import { accuracy, startFixedSim } from './client-accuracy.js';
import { cpuPerToken } from './client-cpu.js';
import { request, TIMEOUTS } from './client-loop.js';
import { capacityByWorkers, ttftByWorkers } from './client-workers.js';

/** Part 3: the client over worker threads (client-workers.ts). */
async function workers(): Promise<void> {
  const tickMs = Number(process.env.BENCH_TICK_MS ?? 20);
  const eventsPerWrite = Number(process.env.BENCH_EVENTS_PER_WRITE ?? 256);
  const concurrency = Number(process.env.BENCH_WORKER_STREAMS ?? 64);
  const maxTokens = Number(process.env.BENCH_WORKER_TOKENS ?? 8192);
  const { child, match } = await startChild(
    [siblingScript(import.meta.url, 'prerendered-server'), String(tickMs), String(eventsPerWrite)],
    /port (\d+)/,
  );
  console.log(
    `\n== client capacity by worker threads (--workers) — ${concurrency} streams × ${maxTokens} tokens; pre-rendered server in another process writing ${eventsPerWrite} SSE events per write every ${tickMs} ms, so the client is the bottleneck ==`,
  );
  try {
    await capacityByWorkers(`http://127.0.0.1:${match[1]}`, request(maxTokens), {
      concurrency,
      requests: 2 * concurrency,
      timeouts: TIMEOUTS,
      serverPid: child.pid,
    });
  } finally {
    child.kill('SIGTERM');
  }
  const sim = await startFixedSim();
  console.log(
    '\n== TTFT over-statement by worker threads, vs the simulator fixed profile (TTFT 50 ms, 10 ms between tokens; another process) ==',
  );
  try {
    await ttftByWorkers(sim.url, sim.built, sim.truthNow, TIMEOUTS);
  } finally {
    sim.child.kill('SIGTERM');
  }
}

const PARTS = ['all', 'cpu', 'accuracy', 'workers'];
const which = process.argv[2] ?? 'all';
if (!PARTS.includes(which)) {
  console.log(
    `usage: npm run bench:client [-- ${PARTS.join('|')}]   (default all; BENCH_* variables tune each part)`,
  );
  process.exit(which === '--help' || which === '-h' ? 0 : 2);
}
await loadUndiciTransport();
console.log(
  `benchgate bench:client — node ${process.version}, ${process.platform}/${process.arch}; load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
if (which === 'all' || which === 'cpu') {
  await cpuPerToken(1);
  await cpuPerToken(4);
}
if (which === 'all' || which === 'accuracy') await accuracy();
if (which === 'all' || which === 'workers') await workers();
