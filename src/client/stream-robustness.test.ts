import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchgateError } from '../core/errors.js';
import type { BuiltRequest } from '../engines/types.js';
import { destroyAgents, loadUndiciTransport, streamRequest } from './stream-request.js';
import {
  completionChunk,
  type ScriptedServer,
  sse,
  startScriptedServer,
} from './test-support/scripted-server.js';
import { planDefaultTimeouts } from './test-support/timeouts.js';
import type { TransportName } from './transport.js';

// Hostile or broken streams, over every transport the client has, against a real local server.

let srv: ScriptedServer;
/** Bytes the huge-event route managed to write before the client hung up. */
let hugeBytesWritten = 0;
const HUGE_BYTES = 100 * 1024 * 1024;

const req = (path: string): BuiltRequest => ({
  method: 'POST',
  path,
  body: { model: 'm', prompt: 'hi', max_tokens: 4, stream: true },
  tokenAccounting: 'openai-final-usage',
});

const send = (path: string, extra: Partial<Parameters<typeof streamRequest>[0]>) =>
  streamRequest({
    baseUrl: srv.url,
    request: req(path),
    originMs: performance.now(),
    id: 1,
    levelIndex: 0,
    warmup: false,
    requestedOutputTokens: 4,
    timeouts: planDefaultTimeouts(),
    ...extra,
  });

beforeAll(async () => {
  await loadUndiciTransport();
  srv = await startScriptedServer({
    '/ok': sse([completionChunk('a'), completionChunk('b', {}, 'length'), '[DONE]']),
    // llama.cpp llama-server when the model's output is not valid UTF-8: an error event, no [DONE]
    '/llama-error-event': sse([
      completionChunk('a'),
      JSON.stringify({
        error: { code: 500, message: 'Invalid UTF-8 sequence in the model output', type: 'server_error' },
      }),
    ]),
    '/huge-event': async (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${completionChunk('a')}\n\n`);
      res.write('data: {"choices":[{"index":0,"text":"');
      const block = Buffer.alloc(64 * 1024, 'x');
      hugeBytesWritten = 0;
      while (hugeBytesWritten < HUGE_BYTES && !res.destroyed) {
        hugeBytesWritten += block.length;
        if (!res.write(block)) await new Promise((r) => res.once('drain', r).once('close', r));
      }
      if (!res.destroyed) res.end('"}]}\n\n');
    },
  });
});

afterAll(async () => {
  destroyAgents();
  await srv.close();
});

describe.each<TransportName>(['raw', 'undici', 'node-http'])('over the %s transport', (transport) => {
  const run = (path: string) => send(path, { transport });

  it('a clean stream is a clean record', async () => {
    const r = await run('/ok');
    expect(r.error).toBeNull();
    expect(r.chunkMs).toHaveLength(2);
    expect(r.finishReason).toBe('length');
  });

  it('an error event mid-stream is BG_E_STREAM_ERROR_EVENT keeping the server message', async () => {
    const r = await run('/llama-error-event');
    expect(r.error?.code).toBe('BG_E_STREAM_ERROR_EVENT');
    expect(r.error?.message).toContain('Invalid UTF-8 sequence in the model output');
    expect(r.chunkMs).toHaveLength(1);
  });

  it('a 100 MB event is stopped at the cap with BG_E_SSE_EVENT_TOO_LARGE, not buffered whole', async () => {
    const r = await run('/huge-event');
    expect(r.error?.code).toBe('BG_E_SSE_EVENT_TOO_LARGE');
    expect(r.error?.message).toContain('1.0 MiB');
    expect(r.chunkMs).toHaveLength(1);
    expect(hugeBytesWritten).toBeLessThan(HUGE_BYTES);
  });
});

describe('an unsendable plan header', () => {
  it.each([
    ['a line break', 'secret-one\r\nX-Evil: 1'],
    ['a non-ASCII character', 'clé-secrète'],
  ])('with %s is a plan error naming the header, never its value', async (_what, value) => {
    const before = srv.bodies.length;
    const err = await send('/ok', { headers: { 'X-Api-Key': value } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BenchgateError);
    expect((err as BenchgateError).code).toBe('BG_E_PLAN_INVALID');
    expect((err as BenchgateError).message).toContain('X-Api-Key');
    expect((err as BenchgateError).message).not.toContain('secret');
    expect(srv.bodies.length).toBe(before);
  });
});
