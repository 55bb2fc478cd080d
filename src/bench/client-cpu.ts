// `npm run bench:client` part 1: client CPU per streamed token, with the raw-socket transport, undici and
// node:http side by side beside two socket floors (the same streams read by sockets that only count
// bytes), plus tokens/s and memory per in-flight stream at concurrency 1/64/256/1024 (BENCH_CONCURRENCY
// overrides), against the pre-rendered stream server in another process so its CPU is not billed here.

import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { destroyAgents } from '../client/stream-request.js';
import type { TransportName } from '../client/transport.js';
import { siblingScript, startChild } from './child.js';
import { closedLoop, request, TRANSPORTS } from './client-loop.js';

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

/** One table: each concurrency level over every transport, the server writing `eventsPerWrite` SSE events per write. */
export async function cpuPerToken(eventsPerWrite: number): Promise<void> {
  const tickMs = 5;
  const { child, match } = await startChild(
    [siblingScript(import.meta.url, 'prerendered-server'), String(tickMs), String(eventsPerWrite)],
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
