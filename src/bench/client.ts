// `npm run bench:client`: how fast and how exact the streaming client is. Prints figures, asserts nothing.
// Part 1: client CPU per streamed token (raw-socket transport and node:http side by side, beside the
// socket floors), tokens/s and memory per in-flight stream at concurrency 1/64/256/1024 against a
// pre-rendered stream server in another process, one event per read and server-batched. Part 2: TTFT and ITL error
// against the simulator's `fixed` profile (server-side truth from GET /_sim/requests), also in another process.

import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  destroyAgents,
  loadUndiciTransport,
  preconnect,
  streamRequest,
  timeoutsFromPlan,
} from '../client/stream-request.js';
import type { TransportName } from '../client/transport.js';
import type { BuiltRequest } from '../engines/types.js';
import { runLevel } from '../load/level-runner.js';
import { targetSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { closedLoopShape } from './bench-shape.js';
import { startChild } from './child.js';
import { capacityByWorkers, ttftByWorkers } from './client-workers.js';

/** The plan's default request timeouts (their one home is the plan schema). */
const TIMEOUTS = timeoutsFromPlan(targetSchema.shape.timeouts.parse(undefined));

const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));

function request(maxTokens: number): BuiltRequest {
  return {
    method: 'POST',
    path: '/v1/completions',
    body: { model: 'm', prompt: 'hi', max_tokens: maxTokens, stream: true },
    tokenAccounting: 'openai-final-usage',
  };
}

async function closedLoop(
  url: string,
  concurrency: number,
  requests: number,
  built: BuiltRequest,
  maxTokens: number,
  sink: (r: RequestRecord) => void,
  transport: TransportName = 'raw',
): Promise<number> {
  const origin = performance.now();
  let id = 0;
  await runLevel({
    shape: closedLoopShape(concurrency, requests),
    send: (a) =>
      streamRequest({
        baseUrl: url,
        request: built,
        originMs: origin,
        id: id++,
        levelIndex: 0,
        warmup: false,
        scheduledAtMs: a.scheduledAtMs,
        requestedOutputTokens: maxTokens,
        timeouts: TIMEOUTS,
        signal: a.signal,
        transport,
      }),
    onRecord: sink,
  });
  return origin;
}

/**
 * The floor under any Node client: the same streams read from raw sockets that only count bytes
 * (no HTTP parsing, no SSE, no records). `data` reads through the socket's stream events (one Buffer
 * per read); `onread` reads into one reused buffer, as the client's transport does.
 */
async function rawSocketFloor(
  port: number,
  concurrency: number,
  perRequest: number,
  rounds: number,
  mode: 'data' | 'onread',
): Promise<{ cpuUsPerToken: number; reads: number }> {
  const body = JSON.stringify({ max_tokens: perRequest });
  const req = `POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const shared = Buffer.allocUnsafe(256 * 1024);
  const done = Buffer.from('[DONE]');
  let reads = 0;
  const worker = async (): Promise<void> => {
    let onBytes: (b: Buffer, n: number) => void = () => {};
    const s =
      mode === 'onread'
        ? net.connect({
            port,
            host: '127.0.0.1',
            onread: {
              buffer: shared,
              callback: (n: number, b: Uint8Array) => {
                onBytes(b as Buffer, n);
                return true;
              },
            },
          } as net.NetConnectOpts)
        : net.connect(port, '127.0.0.1');
    if (mode === 'data') s.on('data', (b: Buffer) => onBytes(b, b.length));
    s.setNoDelay(true);
    await new Promise((r) => s.once('connect', r));
    for (let i = 0; i < rounds; i++) {
      await new Promise<void>((resolve) => {
        onBytes = (b, n) => {
          reads++;
          const at = b.indexOf(done);
          if (at >= 0 && at < n) {
            onBytes = () => {};
            resolve();
          }
        };
        s.write(req);
      });
    }
    s.destroy();
  };
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpu0);
  return { cpuUsPerToken: (cpu.user + cpu.system) / (concurrency * perRequest * rounds), reads };
}

interface ClientRun {
  tokens: number;
  errors: number;
  wallS: number;
  cpuUs: number;
  /** Share of the CPU spent in the kernel (socket reads, epoll, writes). */
  systemShare: number;
  peakBytes: number;
}

/** One measured closed-loop level; CPU is this process's only (the server runs in another). */
async function measure(
  url: string,
  c: number,
  requests: number,
  maxTokens: number,
  transport: TransportName,
): Promise<ClientRun> {
  const built = request(maxTokens);
  await closedLoop(url, c, c, built, maxTokens, () => {}, transport); // open the connections, warm the JIT
  global.gc?.();
  const mem0 = process.memoryUsage();
  let peakBytes = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakBytes = Math.max(peakBytes, m.heapUsed + m.external - mem0.heapUsed - mem0.external);
  }, 100);
  let tokens = 0;
  let errors = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await closedLoop(
    url,
    c,
    requests,
    built,
    maxTokens,
    (r) => {
      if (r.error) errors++;
      for (const n of r.chunkTokens) tokens += n;
    },
    transport,
  );
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  return {
    tokens,
    errors,
    wallS,
    cpuUs: cpu.user + cpu.system,
    systemShare: cpu.system / (cpu.user + cpu.system),
    peakBytes,
  };
}

const TRANSPORTS: { name: TransportName; label: string }[] = [
  { name: 'raw', label: 'raw-socket' },
  { name: 'undici', label: 'undici Pool' },
  { name: 'node-http', label: 'node:http' },
];

async function cpuPerToken(eventsPerWrite: number): Promise<void> {
  const tickMs = 5;
  const { child, match } = await startChild(
    [here('./prerendered-server.js'), String(tickMs), String(eventsPerWrite)],
    /port (\d+)/,
  );
  const url = `http://127.0.0.1:${match[1]}`;
  const condition =
    eventsPerWrite === 1
      ? 'one SSE event per write, so every token is one socket read'
      : `server batched: ${eventsPerWrite} SSE events per write`;
  console.log(
    `\n== client CPU per streamed token — ${condition} (pre-rendered server in another process, one write per stream every ${tickMs} ms) ==`,
  );
  console.log(
    'concurrency  requests  tokens   tokens/s   µs/token raw-socket (kernel %)   µs/token undici   µs/token node:http   undici/raw   node:http/raw   floor µs/token data-event / onread   MB/in-flight stream raw / undici   errors',
  );
  try {
    const levels = process.env.BENCH_CONCURRENCY
      ? process.env.BENCH_CONCURRENCY.split(',').map(Number)
      : [1, 64, 256, 1024];
    for (const c of levels) {
      const maxTokens = c >= 256 ? 64 : 128;
      const requests = Math.max(4, 2 * c);
      const runs = new Map<TransportName, ClientRun>();
      for (const t of TRANSPORTS) {
        runs.set(t.name, await measure(url, c, requests, maxTokens, t.name));
        destroyAgents();
      }
      const raw = runs.get('raw') as ClientRun;
      const und = runs.get('undici') as ClientRun;
      const viaNode = runs.get('node-http') as ClientRun;
      const rounds = Math.max(1, Math.round(requests / c));
      const floorData = await rawSocketFloor(Number(match[1]), c, maxTokens, rounds, 'data');
      const floorOnread = await rawSocketFloor(Number(match[1]), c, maxTokens, rounds, 'onread');
      const us = (r: ClientRun): number => r.cpuUs / r.tokens;
      const counts = [...runs.values()].map((r) => r.tokens);
      const same = counts.every((n) => n === raw.tokens)
        ? ''
        : ` (token counts differ: ${counts.join(' / ')})`;
      const errors = [...runs.values()].reduce((a, r) => a + r.errors, 0);
      const mb = (r: ClientRun): string => (r.peakBytes / 1e6 / c).toFixed(3);
      console.log(
        `${String(c).padStart(11)}  ${String(requests).padStart(8)}  ${String(raw.tokens).padStart(6)}  ${(raw.tokens / raw.wallS).toFixed(0).padStart(9)}  ${`${us(raw).toFixed(2)} (${(raw.systemShare * 100).toFixed(0)}%)`.padStart(30)}  ${us(und).toFixed(2).padStart(15)}  ${us(viaNode).toFixed(2).padStart(18)}  ${(us(und) / us(raw)).toFixed(2).padStart(10)}  ${(us(viaNode) / us(raw)).toFixed(2).padStart(13)}  ${`${floorData.cpuUsPerToken.toFixed(2)} / ${floorOnread.cpuUsPerToken.toFixed(2)}`.padStart(36)}  ${`${mb(raw)} / ${mb(und)}`.padStart(32)}  ${String(errors).padStart(7)}${same}`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    destroyAgents();
  }
}

interface Truth {
  completionTokens: number;
  arrivalMs: number;
  chunkWriteMs: number[];
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (xs: number[], digits = 2): string =>
  `${mean(xs).toFixed(digits)} / ${Math.max(...xs).toFixed(digits)}`;

type TruthNow = () => Promise<{ timeOriginEpochMs: number; requests: Truth[] }>;

/** One closed-loop level over one transport, paired with the simulator's truth; returns the mean TTFT overstatement (ms). */
async function accuracyLevel(
  url: string,
  c: number,
  tr: { name: TransportName; label: string },
  built: BuiltRequest,
  truthNow: TruthNow,
): Promise<number | null> {
  const maxTokens = Number(built.body.max_tokens);
  const requests = Math.max(16, 2 * c);
  if (tr.name === 'raw') await preconnect(url, c, TIMEOUTS.connectMs);
  // open c connections and warm the JIT on every transport alike
  await closedLoop(url, c, c, built, maxTokens, () => {}, tr.name);
  const seen = (await truthNow()).requests.length;
  const recs: RequestRecord[] = [];
  const originAbs = await closedLoop(url, c, requests, built, maxTokens, (r) => recs.push(r), tr.name);
  const t = await truthNow();
  const truth = t.requests.slice(seen).sort((a, b) => a.arrivalMs - b.arrivalMs);
  const ok = recs.filter((r) => !r.error).sort((a, b) => a.sentMs - b.sentMs);
  const head = `${String(c).padStart(11)}  ${tr.label.padEnd(11)}  ${String(requests).padStart(8)}`;
  if (ok.length !== truth.length) {
    console.log(`${head}  ${ok.length} client records but ${truth.length} server truths`);
    return null;
  }
  // client record ms → epoch ms; server truth ms → epoch ms
  const cEpoch = (ms: number): number => performance.timeOrigin + originAbs + ms;
  const sEpoch = (ms: number): number => t.timeOriginEpochMs + ms;
  const sTtfts = truth.map((x) => x.chunkWriteMs[0] - x.arrivalMs);
  const cTtfts = ok.map((r) => r.chunkMs[0] - r.sentMs);
  const over = ok.map((_, i) => cTtfts[i] - sTtfts[i]);
  const requestPath = ok.map((r, i) => sEpoch(truth[i].arrivalMs) - cEpoch(r.sentMs));
  const readPath = ok.map((r, i) => cEpoch(r.chunkMs[0]) - sEpoch(truth[i].chunkWriteMs[0]));
  const gaps = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]);
  const sItl = mean(truth.flatMap((x) => gaps(x.chunkWriteMs)));
  const cItl = mean(ok.flatMap((r) => gaps(r.chunkMs)));
  console.log(
    `${head}  ${mean(sTtfts).toFixed(2).padStart(16)}  ${mean(cTtfts).toFixed(2).padStart(16)}  ${fmt(over).padStart(32)}  ${fmt(requestPath).padStart(26)}  ${fmt(readPath).padStart(35)}  ${sItl.toFixed(3).padStart(15)}  ${cItl.toFixed(3).padStart(15)}  ${(cItl - sItl).toFixed(3).padStart(17)}`,
  );
  return mean(over);
}

/** The simulator's `fixed` profile in another process, a request for it, and its truth endpoint. */
async function startFixedSim(): Promise<{
  child: ChildProcess;
  url: string;
  built: BuiltRequest;
  truthNow: TruthNow;
}> {
  const main = here('../cli/main.js');
  const { child, match } = await startChild(
    [
      main,
      'sim',
      '--flavor',
      'vllm',
      '--profile',
      'fixed',
      '--ttft-ms',
      '50',
      '--itl-ms',
      '10',
      '--tokens-per-chunk',
      '1',
      '--load-time',
      '0',
    ],
    /listening on (http:\/\/[\d.:]+)/,
  );
  const url = match[1];
  const built: BuiltRequest = {
    method: 'POST',
    path: '/v1/completions',
    body: {
      model: 'benchgate/fixed-timing',
      prompt: 'a b c d',
      max_tokens: 32,
      stream: true,
      ignore_eos: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    },
    tokenAccounting: 'openai-continuous-usage',
  };
  const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] };
  built.body.model = models.data[0].id;
  const truthNow = async () =>
    (await (await fetch(`${url}/_sim/requests`)).json()) as {
      timeOriginEpochMs: number;
      requests: Truth[];
    };
  return { child, url, built, truthNow };
}

/**
 * TTFT and ITL error against the simulator's own timestamps. Both processes stamp performance.now()
 * and publish their timeOrigin (epoch ms, same system clock), so each request's error splits into
 * the request path (client send → server arrival stamp) and the read path (server write of the
 * first chunk → client read stamp). Requests are paired in send order (closed loop on warm sockets).
 */
async function accuracy(): Promise<void> {
  const { child, url, built, truthNow } = await startFixedSim();
  console.log(
    '\n== accuracy vs the simulator fixed profile (TTFT 50 ms, 10 ms between tokens; server in another process; connections opened before each level) ==',
  );
  console.log(
    'concurrency  transport    requests  server TTFT mean  client TTFT mean  TTFT overstatement mean / max ms  request path mean / max ms  first-chunk read path mean / max ms  server ITL mean  client ITL mean  ITL error mean ms',
  );
  try {
    for (const c of [1, 16, 64]) {
      const overMean = new Map<TransportName, number>();
      for (const tr of TRANSPORTS) {
        const m = await accuracyLevel(url, c, tr, built, truthNow);
        if (m !== null) overMean.set(tr.name, m);
        destroyAgents();
      }
      const raw = overMean.get('raw');
      const ratio = (n: TransportName): string => {
        const v = overMean.get(n);
        return raw === undefined || v === undefined
          ? 'n/a'
          : `${(v / raw).toFixed(2)}× (${(v - raw).toFixed(3)} ms)`;
      };
      console.log(
        `${String(c).padStart(11)}  TTFT overstatement vs raw-socket: undici ${ratio('undici')}, node:http ${ratio('node-http')}`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    destroyAgents();
  }
}

/** Part 3: the client over worker threads (client-workers.ts). */
async function workers(): Promise<void> {
  const tickMs = Number(process.env.BENCH_TICK_MS ?? 20);
  const eventsPerWrite = Number(process.env.BENCH_EVENTS_PER_WRITE ?? 256);
  const concurrency = Number(process.env.BENCH_WORKER_STREAMS ?? 64);
  const maxTokens = Number(process.env.BENCH_WORKER_TOKENS ?? 8192);
  const { child, match } = await startChild(
    [here('./prerendered-server.js'), String(tickMs), String(eventsPerWrite)],
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

await loadUndiciTransport();
const which = process.argv[2] ?? 'all';
console.log(
  `benchgate bench:client — node ${process.version}, ${process.platform}/${process.arch}; load average ${(
    await import('node:os')
  )
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
if (which === 'all' || which === 'cpu') {
  await cpuPerToken(1);
  await cpuPerToken(4);
}
if (which === 'all' || which === 'accuracy') await accuracy();
if (which === 'all' || which === 'workers') await workers();
