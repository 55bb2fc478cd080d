// `npm run bench:memory`: client memory against request count. The same closed-loop level (same
// concurrency, same streams) runs with 2k and 20k requests, each in a fresh process, against the
// pre-rendered stream server in another process, three ways: records held until the level ends and
// summarised in memory (how levels were summarised before); records streamed to requests.jsonl and
// summarised from the file, sent the way a session sends a level (session/level-send.ts, with the live
// progress view) in one thread; and the same over two worker threads (--workers 2). Prints peak RSS and
// peak heap per run and the 20k/2k ratio. Prints figures, asserts nothing.
// argv: [concurrency=200] [outputTokens=16];
// internally: child <url> <requests> <mode> <concurrency> <tokens> <workers>.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { destroyAgents, streamRequest, timeoutsFromPlan } from '../client/stream-request.js';
import { takeAnchor } from '../core/clock.js';
import type { BuiltRequest } from '../engines/types.js';
import { runLevel } from '../load/level-runner.js';
import { ttyProgress } from '../load/progress.js';
import { summarizeLevel } from '../metrics/level.js';
import type { LevelContext } from '../metrics/level-accumulator.js';
import { targetSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { REQUESTS_FILE } from '../results/layout.js';
import { summarizeStoredLevel } from '../results/level-from-file.js';
import { createRunStore } from '../results/run-store.js';
import { sendLevel } from '../session/level-send.js';
import { closedLoopShape } from './bench-shape.js';
import { siblingScript, startChild } from './child.js';

type Mode = 'held' | 'streamed';

/** The rows measured: how records are kept, over how many threads. */
const CASES: { mode: Mode; workers: number }[] = [
  { mode: 'held', workers: 1 },
  { mode: 'streamed', workers: 1 },
  { mode: 'streamed', workers: 2 },
];

interface ChildResult {
  requests: number;
  mode: Mode;
  workers: number;
  peakRssMb: number;
  peakHeapMb: number;
  /** Peak RSS while the level ran (before it was summarised). */
  levelRssMb: number;
  completed: number;
  wallS: number;
}

const completionRequest = (tokens: number): BuiltRequest => ({
  method: 'POST',
  path: '/v1/completions',
  body: { model: 'm', prompt: 'hi', max_tokens: tokens, stream: true },
  tokenAccounting: 'openai-final-usage',
});

/** The level as levels were sent before: records held by the runner, streams started here. */
function sendHeld(
  url: string,
  concurrency: number,
  requests: number,
  tokens: number,
  onRecord: (r: RequestRecord) => void,
) {
  const origin = performance.now();
  let id = 0;
  return runLevel({
    shape: closedLoopShape(concurrency, requests),
    retainRecords: true,
    send: (a) =>
      streamRequest({
        baseUrl: url,
        request: completionRequest(tokens),
        timeouts: timeoutsFromPlan(targetSchema.shape.timeouts.parse(undefined)),
        originMs: origin,
        id: id++,
        levelIndex: 0,
        warmup: false,
        scheduledAtMs: a.scheduledAtMs,
        requestedOutputTokens: tokens,
        signal: a.signal,
      }),
    onRecord,
  });
}

/** The level as a session sends it (level-send.ts): streamed records, the live progress view, 1 or N threads. */
async function sendAsSession(
  url: string,
  o: { concurrency: number; requests: number; tokens: number; workers: number },
  onRecord: (r: RequestRecord) => void,
) {
  const progress = ttyProgress({ write: () => true } as unknown as NodeJS.WriteStream);
  progress.levelStarted(0, 1, `concurrency ${o.concurrency}`, o.requests, null);
  let id = 0;
  const sent = await sendLevel({
    shape: closedLoopShape(o.concurrency, o.requests),
    workers: o.workers,
    url,
    headers: {},
    timeouts: timeoutsFromPlan(targetSchema.shape.timeouts.parse(undefined)),
    anchor: takeAnchor(),
    built: [completionRequest(o.tokens)],
    prompts: [{ prompt: 'hi', inputTokens: 1, outputTokens: o.tokens }],
    inFlight: o.concurrency,
    nextId: () => id++,
    onRecord: (r) => {
      onRecord(r);
      progress.record(r);
    },
  });
  progress.levelDone();
  return sent.result;
}

async function child(
  url: string,
  requests: number,
  mode: Mode,
  concurrency: number,
  tokens: number,
  workers: number,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bg-memory-'));
  let peakRss = 0;
  let peakHeap = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  const sample = (): void => {
    gc?.(); // live heap, not garbage awaiting collection
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const timer = setInterval(sample, 250);
  const store = createRunStore({
    outDir: dir,
    runId: 'memory',
    secrets: [],
    manifest: { name: 'memory' } as never,
  });
  const t0 = performance.now();
  const append = (r: RequestRecord) => store.appendRecord(r);
  const result =
    mode === 'held'
      ? await sendHeld(url, concurrency, requests, tokens, append)
      : await sendAsSession(url, { concurrency, requests, tokens, workers }, append);
  sample();
  const levelRssMb = peakRss / 2 ** 20;
  const ctx: LevelContext = {
    levelIndex: 0,
    level: { kind: 'concurrency', value: concurrency },
    percentiles: [50, 90, 99],
    slo: {},
    inFlightAtEnd: result.inFlightAtEnd,
  };
  const summary =
    mode === 'held'
      ? summarizeLevel({ ...ctx, records: result.records })
      : await summarizeStoredLevel(join(store.dir, REQUESTS_FILE), ctx);
  sample();
  clearInterval(timer);
  store.close();
  destroyAgents();
  rmSync(dir, { recursive: true, force: true });
  const out: ChildResult = {
    requests,
    mode,
    workers,
    peakRssMb: peakRss / 2 ** 20,
    peakHeapMb: peakHeap / 2 ** 20,
    levelRssMb,
    completed: summary.requests.completed,
    wallS: (performance.now() - t0) / 1000,
  };
  process.stdout.write(`result ${JSON.stringify(out)}\n`);
}

async function parent(concurrency: number, tokens: number): Promise<void> {
  const { child: server, match } = await startChild(
    [siblingScript(import.meta.url, './prerendered-server'), '2', '1'],
    /port (\d+)/,
    process.execArgv,
  );
  const url = `http://127.0.0.1:${match[1]}`;
  console.log(
    `benchgate bench:memory — node ${process.version}; closed loop, concurrency ${concurrency}, ${tokens} tokens per request, pre-rendered server (one event per 2 ms)`,
  );
  console.log(
    'mode       threads  requests  completed  wall s  peak RSS MB (during level)  peak live heap MB',
  );
  try {
    for (const { mode, workers } of CASES) {
      const rows: ChildResult[] = [];
      for (const requests of [2000, 20000]) {
        const { child: c, match: m } = await startChild(
          [
            siblingScript(import.meta.url, './memory'),
            'child',
            url,
            String(requests),
            mode,
            String(concurrency),
            String(tokens),
            String(workers),
          ],
          /result (\{.*\})/,
          [...process.execArgv, '--expose-gc'],
        );
        c.kill('SIGTERM');
        const r = JSON.parse(m[1]!) as ChildResult;
        rows.push(r);
        console.log(
          `${mode.padEnd(9)}  ${String(workers).padStart(7)}  ${String(r.requests).padStart(8)}  ${String(r.completed).padStart(9)}  ${r.wallS.toFixed(1).padStart(6)}  ${r.peakRssMb.toFixed(1).padStart(11)} (${r.levelRssMb.toFixed(1).padStart(6)})  ${r.peakHeapMb.toFixed(1).padStart(17)}`,
        );
      }
      const [a, b] = rows as [ChildResult, ChildResult];
      console.log(
        `${mode}, ${workers} thread(s): 20k/2k peak RSS ${((b.peakRssMb / a.peakRssMb - 1) * 100).toFixed(1)} %, peak heap ${((b.peakHeapMb / a.peakHeapMb - 1) * 100).toFixed(1)} %`,
      );
    }
  } finally {
    server.kill('SIGTERM');
  }
}

const [cmd, ...rest] = process.argv.slice(2);
if (cmd === 'child') {
  const [url, requests, mode, concurrency, tokens, workers] = rest;
  await child(
    url!,
    Number(requests),
    mode as Mode,
    Number(concurrency),
    Number(tokens),
    Number(workers ?? 1),
  );
} else {
  await parent(Number(cmd ?? 200), Number(rest[0] ?? 16));
}
