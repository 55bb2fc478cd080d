// The session's guarantees, seen from the wire: a target is prepared once (one /v1/models listing,
// one smoke request), however many levels are then swept, and every record shares the session's anchor.
// A counting proxy sits between the session and a real simulator.

import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../client/test-support/scripted-server.js';
import { silentProgress } from '../load/progress.js';
import { planSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import type { SimulatorHandle } from '../sim/api.js';
import { startSimulator } from '../sim/index.js';
import { openSession } from './session.js';

let sim: SimulatorHandle;
let proxy: Server;
let proxyUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({
    flavor: 'sglang',
    profile: 'fixed',
    ttftMs: 5,
    itlMs: 1,
    loadTimeS: 0,
    port: 0,
    host: '127.0.0.1',
  });
  await sim.ready;
  const upstream = new URL(sim.url);
  proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const up = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await sim.close();
});

describe('openSession', () => {
  it('lists models and sends the smoke request once for three levels, and every record shares one anchor', async () => {
    const plan = planSchema.parse({
      target: { url: proxyUrl, engine: 'auto', api: 'native' },
      workload: { input_tokens: { fixed: 16 }, output_tokens: { fixed: 8 }, ignore_eos: true },
      load: { kind: 'concurrency', levels: [1, 2, 3], requests: 4, warmup: 0 },
      output: mkdtempSync(join(tmpdir(), 'bg-session-')),
    });
    let gateCalls = 0;
    const session = await openSession({
      plan,
      url: proxyUrl,
      headers: {},
      secrets: [],
      progress: silentProgress,
      beforeLoad: async () => {
        gateCalls++;
        return { report: { ok: true, findings: [] } as never, verifiedTarget: null };
      },
    });
    const stores = [0, 1, 2].map((i) => session.openStore({ runDir: join(plan.output, `level-${i}`) }));
    try {
      for (const i of [0, 1, 2]) {
        const r = await session.runLevel(i, { store: stores[i] });
        expect(r.interrupted).toBe(false);
        expect(r.summary.levelIndex).toBe(i);
      }
    } finally {
      for (const s of stores) s.close();
      session.close();
    }
    expect(gateCalls).toBe(1);
    expect(seen.filter((l) => l === 'GET /v1/models')).toHaveLength(1);
    const generations = seen.filter((l) => l === 'POST /generate');
    expect(generations).toHaveLength(1 + 3 * 4); // one smoke, then 4 requests per level
    const truth = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as {
      requests: { completionTokens: number }[];
    };
    expect(truth.requests.filter((t) => t.completionTokens === 2)).toHaveLength(1); // the smoke asks for 2 tokens

    const anchors = stores.map(
      (s) => JSON.parse(readFileSync(join(s.dir, 'manifest.json'), 'utf8')).anchor as { monoMs: number },
    );
    expect(new Set(anchors.map((a) => a.monoMs)).size).toBe(1);
    expect(anchors[0].monoMs).toBe(session.anchor.monoMs);
    const ids = stores.flatMap((s) =>
      readFileSync(join(s.dir, 'requests.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as RequestRecord).id),
    );
    expect(ids.sort((a, b) => a - b)).toEqual([...Array(12).keys()]); // ids continue across levels
  });
});

describe('openSession model choice', () => {
  const modelsAnswering = (status: number, body: unknown) =>
    startScriptedServer({
      '/v1/models': (_q, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      },
    });
  const open = (url: string) =>
    openSession({
      plan: planSchema.parse({
        target: { url, engine: 'openai' },
        output: mkdtempSync(join(tmpdir(), 'bg-m-')),
      }),
      url,
      headers: {},
      secrets: [],
    });

  it('calls a 200 with an empty model list a target error (BG_E_NO_MODEL), not a plan error', async () => {
    const srv = await modelsAnswering(200, { object: 'list', data: [] });
    try {
      await expect(open(srv.url)).rejects.toMatchObject({ code: 'BG_E_NO_MODEL', exitCode: 1 });
    } finally {
      await srv.close();
    }
  });

  it('names the status of a non-200 /v1/models (BG_E_HTTP_STATUS) instead of "lists no model"', async () => {
    const srv = await modelsAnswering(503, { error: 'loading' });
    try {
      await expect(open(srv.url)).rejects.toMatchObject({
        code: 'BG_E_HTTP_STATUS',
        message: expect.stringMatching(/answered HTTP 503/),
      });
    } finally {
      await srv.close();
    }
  });
});
