// `npm run bench:client`: how fast and how exact the streaming client is. Prints figures, asserts nothing.
// Part 1: client CPU per streamed token, tokens/s and memory per in-flight stream at concurrency
// 1/64/256/1024 against a pre-rendered stream server in another process. Part 2: TTFT and ITL error
// against the simulator's `fixed` profile (server-side truth from GET /_sim/requests), also in another process.

import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { RequestRecord } from '../client/record.js';
import { destroyAgents, streamRequest } from '../client/stream-request.js';
import type { BuiltRequest } from '../engines/types.js';
import { runLevel } from '../load/level-runner.js';

const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));

async function startChild(
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    child.stdout?.on('data', (c) => {
      out += c;
      const m = out.match(ready);
      if (m) resolve(m);
    });
    child.on('exit', (code) => reject(new Error(`child exited (${code}) before it was ready: ${out}`)));
  });
  child.stdout?.resume();
  return { child, match };
}

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
): Promise<void> {
  const origin = performance.now();
  let id = 0;
  await runLevel({
    shape: {
      levelIndex: 0,
      level: { kind: 'concurrency', value: concurrency },
      requests,
      durationMs: null,
      warmup: 0,
      arrival: 'constant',
      burstiness: 1,
      seed: 1,
    },
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
        signal: a.signal,
      }),
    onRecord: sink,
  });
}

/**
 * The floor under any Node client: the same streams read from raw sockets that only count bytes
 * (no HTTP parsing, no SSE, no records). What the client costs above this is benchgate's own work.
 */
async function rawSocketFloor(
  port: number,
  concurrency: number,
  perRequest: number,
  rounds: number,
): Promise<{ cpuUsPerToken: number; reads: number }> {
  const body = JSON.stringify({ max_tokens: perRequest });
  const req = `POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  let reads = 0;
  const worker = async (): Promise<void> => {
    const s = net.connect(port, '127.0.0.1');
    s.setNoDelay(true);
    await new Promise((r) => s.once('connect', r));
    for (let i = 0; i < rounds; i++) {
      await new Promise<void>((resolve) => {
        const onData = (b: Buffer): void => {
          reads++;
          if (b.includes('[DONE]')) {
            s.off('data', onData);
            resolve();
          }
        };
        s.on('data', onData);
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

async function cpuPerToken(): Promise<void> {
  const tickMs = 5;
  const { child, match } = await startChild([here('./prerendered-server.js'), String(tickMs)], /port (\d+)/);
  const url = `http://127.0.0.1:${match[1]}`;
  console.log(
    `\n== client CPU per streamed token (pre-rendered server in another process, one chunk per stream every ${tickMs} ms) ==`,
  );
  console.log(
    'concurrency  requests  tokens   wall s   tokens/s   client CPU µs/token   CPU % of one core   heap+ext MB/in-flight stream (peak)   errors   floor µs/token (raw socket, no parsing)',
  );
  try {
    const levels = process.env.BENCH_CONCURRENCY
      ? process.env.BENCH_CONCURRENCY.split(',').map(Number)
      : [1, 64, 256, 1024];
    for (const c of levels) {
      const maxTokens = c >= 256 ? 64 : 128;
      const requests = Math.max(4, 2 * c);
      const built = request(maxTokens);
      await closedLoop(url, Math.min(c, 8), Math.min(c, 8), built, maxTokens, () => {}); // warm connections + JIT
      global.gc?.();
      const mem0 = process.memoryUsage();
      let peak = 0;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peak = Math.max(peak, m.heapUsed + m.external - mem0.heapUsed - mem0.external);
      }, 100);
      let tokens = 0;
      let errors = 0;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await closedLoop(url, c, requests, built, maxTokens, (r) => {
        if (r.error) errors++;
        for (const n of r.chunkTokens) tokens += n;
      });
      const wallS = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      clearInterval(sampler);
      const cpuUs = cpu.user + cpu.system;
      const floor = await rawSocketFloor(
        Number(match[1]),
        c,
        maxTokens,
        Math.max(1, Math.round(requests / c)),
      );
      console.log(
        `${String(c).padStart(11)}  ${String(requests).padStart(8)}  ${String(tokens).padStart(6)}  ${wallS.toFixed(2).padStart(7)}  ${(tokens / wallS).toFixed(0).padStart(9)}  ${(cpuUs / tokens).toFixed(2).padStart(20)}  ${((cpuUs / 1e6 / wallS) * 100).toFixed(0).padStart(18)}  ${(peak / 1e6 / c).toFixed(3).padStart(36)}  ${String(errors).padStart(7)}  ${floor.cpuUsPerToken.toFixed(2).padStart(40)}`,
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

async function accuracy(): Promise<void> {
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
  console.log(
    '\n== accuracy vs the simulator fixed profile (TTFT 50 ms, 10 ms between tokens; server in another process) ==',
  );
  console.log(
    'concurrency  requests  server TTFT mean  client TTFT mean  TTFT overstatement mean/max ms  of which send→headers  headers→1st chunk − server TTFT  server ITL mean  client ITL mean  ITL error mean ms',
  );
  try {
    const maxTokens = 32;
    const built: BuiltRequest = {
      method: 'POST',
      path: '/v1/completions',
      body: {
        model: 'benchgate/fixed-timing',
        prompt: 'a b c d',
        max_tokens: maxTokens,
        stream: true,
        ignore_eos: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      },
      tokenAccounting: 'openai-continuous-usage',
    };
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] };
    built.body.model = models.data[0].id;
    for (const c of [1, 16, 64]) {
      const requests = Math.max(16, 2 * c);
      await closedLoop(url, Math.min(c, 4), 4, built, maxTokens, () => {});
      const seen = ((await (await fetch(`${url}/_sim/requests`)).json()) as { requests: Truth[] }).requests
        .length;
      const recs: RequestRecord[] = [];
      await closedLoop(url, c, requests, built, maxTokens, (r) => recs.push(r));
      const truth = (
        (await (await fetch(`${url}/_sim/requests`)).json()) as { requests: Truth[] }
      ).requests.slice(seen);
      const ok = recs.filter((r) => !r.error);
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const sTtft = mean(truth.map((t) => t.chunkWriteMs[0] - t.arrivalMs));
      const cTtft = mean(ok.map((r) => r.chunkMs[0] - r.sentMs));
      const gaps = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]);
      const sItl = mean(truth.flatMap((t) => gaps(t.chunkWriteMs)));
      const cItl = mean(ok.flatMap((r) => gaps(r.chunkMs)));
      // per-request overstatement needs pairing; pair by order of arrival (closed loop: sends and arrivals keep order)
      const sorted = [...ok].sort((a, b) => a.sentMs - b.sentMs);
      const over = sorted.map(
        (r, i) => r.chunkMs[0] - r.sentMs - (truth[i] ? truth[i].chunkWriteMs[0] - truth[i].arrivalMs : 0),
      );
      // send→headers: the server answers headers as it accepts the request, so this is transport + the
      // server's own accept/parse delay before it stamps arrival; the rest is the client's read lag
      const toHeaders = mean(ok.map((r) => (r.headersMs ?? r.sentMs) - r.sentMs));
      const afterHeaders = mean(ok.map((r) => r.chunkMs[0] - (r.headersMs ?? r.sentMs))) - sTtft;
      console.log(
        `${String(c).padStart(11)}  ${String(requests).padStart(8)}  ${sTtft.toFixed(2).padStart(16)}  ${cTtft.toFixed(2).padStart(16)}  ${`${(cTtft - sTtft).toFixed(2)} / ${Math.max(...over).toFixed(2)}`.padStart(30)}  ${toHeaders.toFixed(2).padStart(21)}  ${afterHeaders.toFixed(2).padStart(31)}  ${sItl.toFixed(3).padStart(15)}  ${cItl.toFixed(3).padStart(15)}  ${(cItl - sItl).toFixed(3).padStart(17)}`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    destroyAgents();
  }
}

const which = process.argv[2] ?? 'all';
console.log(
  `benchgate bench:client — node ${process.version}, ${process.platform}/${process.arch}; load average ${(
    await import('node:os')
  )
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
if (which === 'all' || which === 'cpu') await cpuPerToken();
if (which === 'all' || which === 'accuracy') await accuracy();
