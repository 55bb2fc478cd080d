// `npm run bench:client` part 2: TTFT and ITL error of the client against the simulator's `fixed` profile
// in another process, whose own timestamps (GET /_sim/requests) are the truth, over every transport.
// Also starts that simulator for part 3 (client-workers.ts), which measures the same error by workers.

import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { destroyAgents, preconnect } from '../client/stream-request.js';
import type { TransportName } from '../client/transport.js';
import type { BuiltRequest } from '../engines/types.js';
import type { RequestRecord } from '../records/request-record.js';
import { startChild } from './child.js';
import { closedLoop, TIMEOUTS, TRANSPORTS } from './client-loop.js';

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
export async function startFixedSim(): Promise<{
  child: ChildProcess;
  url: string;
  built: BuiltRequest;
  truthNow: TruthNow;
}> {
  const main = fileURLToPath(new URL('../cli/main.js', import.meta.url));
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
export async function accuracy(): Promise<void> {
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
