// The stall clock (target.timeouts.stall_s) starts at the first token chunk: a long prefill is governed
// by ttft_s alone, and only a stream that goes quiet after it started is a stall (issue 33 item 4).

import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltRequest } from '../engines/types.js';
import { streamRequest } from './stream-request.js';
import {
  chatChunk,
  type ScriptedServer,
  sleep,
  startScriptedServer,
} from './test-support/scripted-server.js';
import { planDefaultTimeouts } from './test-support/timeouts.js';

/** Stall 0.3 s, first token at 0.6 s, first-token timeout far away. */
const STALL_MS = 300;
const FIRST_TOKEN_AFTER_MS = 600;

let srv: ScriptedServer;
const origin = performance.now();

const event = (res: http.ServerResponse, data: string) => res.write(`data: ${data}\n\n`);

/** Headers at once (optionally a role-only chunk), the first token late, then the rest or silence. */
function lateFirstToken(opts: { roleChunk: boolean; headersLate: boolean; stallAfter: boolean }) {
  return async (_q: http.IncomingMessage, res: http.ServerResponse) => {
    const head = () => res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (!opts.headersLate) {
      head();
      res.flushHeaders();
      if (opts.roleChunk) event(res, chatChunk({ role: 'assistant', content: '' }));
    }
    await sleep(FIRST_TOKEN_AFTER_MS);
    if (opts.headersLate) head();
    event(res, chatChunk({ content: 'first' }));
    if (opts.stallAfter) return; // goes quiet with the connection open
    for (const t of [' second', ' third']) {
      await sleep(20);
      event(res, chatChunk({ content: t }));
    }
    event(res, chatChunk({ content: '' }, {}, 'stop'));
    event(res, '[DONE]');
    res.end();
  };
}

const req = (path: string): BuiltRequest => ({
  method: 'POST',
  path,
  body: { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, stream: true },
  tokenAccounting: 'openai-final-usage',
});

const run = (path: string) =>
  streamRequest({
    baseUrl: srv.url,
    request: req(path),
    originMs: origin,
    id: 1,
    levelIndex: 0,
    warmup: false,
    requestedOutputTokens: 4,
    timeouts: planDefaultTimeouts({ stallMs: STALL_MS, ttftMs: 20_000 }),
  });

beforeAll(async () => {
  srv = await startScriptedServer({
    '/headers-then-late-token': lateFirstToken({ roleChunk: false, headersLate: false, stallAfter: false }),
    '/role-chunk-then-late-token': lateFirstToken({ roleChunk: true, headersLate: false, stallAfter: false }),
    '/late-headers-and-token': lateFirstToken({ roleChunk: false, headersLate: true, stallAfter: false }),
    '/late-token-then-stall': lateFirstToken({ roleChunk: false, headersLate: false, stallAfter: true }),
  });
});

afterAll(async () => {
  await srv.close();
});

describe('stall clock', () => {
  it('a first token later than stall_s but within ttft_s succeeds (headers sent at once)', async () => {
    const r = await run('/headers-then-late-token');
    expect(r.error).toBeNull();
    expect(r.chunkMs).toHaveLength(3);
    expect(r.finishReason).toBe('stop');
  });

  it('a role-only chunk before a late first token does not start the stall clock', async () => {
    const r = await run('/role-chunk-then-late-token');
    expect(r.error).toBeNull();
    expect(r.chunkMs).toHaveLength(3);
  });

  it('a server silent (no headers) until a late first token succeeds', async () => {
    const r = await run('/late-headers-and-token');
    expect(r.error).toBeNull();
    expect(r.chunkMs).toHaveLength(3);
  });

  it('a stream that goes quiet after its late first token still fails as a stall', async () => {
    const r = await run('/late-token-then-stall');
    expect(r.error?.code).toBe('BG_E_STALL_TIMEOUT');
    expect(r.error?.message).toContain('after 1 token chunks');
    expect(r.chunkMs).toHaveLength(1);
  });
});
