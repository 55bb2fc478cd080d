// `npm run bench:memory`: client memory against request count. The same closed-loop level (same
// concurrency, same streams) runs with 2k and 20k requests, each in a fresh process, against the
// pre-rendered stream server in another process, two ways: records held until the level ends and
// summarised in memory (how levels were summarised before), and records streamed to requests.jsonl
// and summarised from the file (how runs summarise now). Prints peak RSS and peak heap per run and the
// 20k/2k ratio. Prints figures, asserts nothing.
// argv: [concurrency=200] [outputTokens=16]; internally: child <url> <requests> <mode> <concurrency> <tokens>.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { destroyAgents, streamRequest, timeoutsFromPlan } from '../client/stream-request.js';
import { runLevel } from '../load/level-runner.js';
import { summarizeLevel } from '../metrics/level.js';
import type { LevelContext } from '../metrics/level-accumulator.js';
import { targetSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { REQUESTS_FILE } from '../results/layout.js';
import { summarizeStoredLevel } from '../results/level-from-file.js';
import { createRunStore } from '../results/run-store.js';
import { closedLoopShape } from './bench-shape.js';
import { siblingScript, startChild } from './child.js';

type Mode = 'held' | 'streamed';

interface ChildResult {
  requests: number;
  mode: Mode;
  peakRssMb: number;
  peakHeapMb: number;
  /** Peak RSS while the level ran (before it was summarised). */
  levelRssMb: number;
  completed: number;
  wallS: number;
}

async function child(
  url: string,
  requests: number,
  mode: Mode,
  concurrency: number,
  tokens: number,
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
  const origin = performance.now();
  let id = 0;
  const t0 = performance.now();
  const result = await runLevel({
    shape: closedLoopShape(concurrency, requests),
    retainRecords: mode === 'held',
    send: (a) =>
      streamRequest({
        baseUrl: url,
        request: {
          method: 'POST',
          path: '/v1/completions',
          body: { model: 'm', prompt: 'hi', max_tokens: tokens, stream: true },
          tokenAccounting: 'openai-final-usage',
        },
        timeouts: timeoutsFromPlan(targetSchema.shape.timeouts.parse(undefined)),
        originMs: origin,
        id: id++,
        levelIndex: 0,
        warmup: false,
        scheduledAtMs: a.scheduledAtMs,
        requestedOutputTokens: tokens,
        signal: a.signal,
      }),
    onRecord: (r: RequestRecord) => store.appendRecord(r),
  });
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
  console.log('mode       requests  completed  wall s  peak RSS MB (during level)  peak live heap MB');
  try {
    for (const mode of ['held', 'streamed'] as const) {
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
          ],
          /result (\{.*\})/,
          [...process.execArgv, '--expose-gc'],
        );
        c.kill('SIGTERM');
        const r = JSON.parse(m[1]!) as ChildResult;
        rows.push(r);
        console.log(
          `${mode.padEnd(9)}  ${String(r.requests).padStart(8)}  ${String(r.completed).padStart(9)}  ${r.wallS.toFixed(1).padStart(6)}  ${r.peakRssMb.toFixed(1).padStart(11)} (${r.levelRssMb.toFixed(1).padStart(6)})  ${r.peakHeapMb.toFixed(1).padStart(17)}`,
        );
      }
      const [a, b] = rows as [ChildResult, ChildResult];
      console.log(
        `${mode}: 20k/2k peak RSS ${((b.peakRssMb / a.peakRssMb - 1) * 100).toFixed(1)} %, peak heap ${((b.peakHeapMb / a.peakHeapMb - 1) * 100).toFixed(1)} %`,
      );
    }
  } finally {
    server.kill('SIGTERM');
  }
}

const [cmd, ...rest] = process.argv.slice(2);
if (cmd === 'child') {
  const [url, requests, mode, concurrency, tokens] = rest;
  await child(url!, Number(requests), mode as Mode, Number(concurrency), Number(tokens));
} else {
  await parent(Number(cmd ?? 200), Number(rest[0] ?? 16));
}
