import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltRequest } from '../engines/types.js';
import { distributeTotal, streamRequest } from './stream-request.js';
import {
  chatChunk,
  completionChunk,
  type ScriptedServer,
  sleep,
  sse,
  startScriptedServer,
} from './test-support/scripted-server.js';
import { planDefaultTimeouts } from './test-support/timeouts.js';

let srv: ScriptedServer;
const origin = performance.now();

const req = (
  path: string,
  tokenAccounting: BuiltRequest['tokenAccounting'] = 'openai-final-usage',
): BuiltRequest => ({
  method: 'POST',
  path,
  body: { model: 'm', prompt: 'hi', max_tokens: 4, stream: true },
  tokenAccounting,
});

const run = (
  path: string,
  acc?: BuiltRequest['tokenAccounting'],
  extra: Partial<Parameters<typeof streamRequest>[0]> = {},
) =>
  streamRequest({
    baseUrl: srv.url,
    request: req(path, acc),
    originMs: origin,
    id: 1,
    levelIndex: 0,
    warmup: false,
    requestedOutputTokens: 4,
    timeouts: planDefaultTimeouts(),
    ...extra,
  });

beforeAll(async () => {
  srv = await startScriptedServer({
    '/final-usage': sse(
      [
        completionChunk('Hello'),
        completionChunk(' wonderful world'),
        completionChunk('!', {}, 'length'),
        JSON.stringify({
          id: 'x',
          choices: [],
          usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 },
        }),
        '[DONE]',
      ],
      { gapMs: 5 },
    ),
    '/continuous': sse(
      [
        chatChunk({ role: 'assistant', content: '' }, { usage: { prompt_tokens: 9, completion_tokens: 0 } }),
        chatChunk({ reasoning_content: 'think' }, { usage: { prompt_tokens: 9, completion_tokens: 1 } }),
        chatChunk({ content: 'ab' }, { usage: { prompt_tokens: 9, completion_tokens: 4 } }),
        chatChunk({ content: 'c' }, { usage: { prompt_tokens: 9, completion_tokens: 6 } }, 'stop'),
        '[DONE]',
      ],
      { gapMs: 5 },
    ),
    '/generate': sse(
      [
        JSON.stringify({
          text: 'a',
          meta_info: { prompt_tokens: 3, completion_tokens: 2, finish_reason: null, spec_verify_ct: 1 },
        }),
        JSON.stringify({
          text: 'abc',
          meta_info: { prompt_tokens: 3, completion_tokens: 5, finish_reason: null, spec_verify_ct: 2 },
        }),
        JSON.stringify({
          text: 'abcd',
          meta_info: {
            prompt_tokens: 3,
            completion_tokens: 6,
            finish_reason: { type: 'length', length: 6 },
            spec_verify_ct: 3,
          },
        }),
        '[DONE]',
      ],
      { gapMs: 5 },
    ),
    '/status-500': (_q, res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"model exploded"}');
    },
    '/html': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>login page</body></html>');
    },
    '/silent': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    },
    '/stall': sse([completionChunk('a')], { keepOpen: true }),
    '/slow-forever': async (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 100 && !res.destroyed; i++) {
        res.write(`data: ${completionChunk('x')}\n\n`);
        await sleep(10);
      }
    },
    '/truncated': sse([completionChunk('a'), completionChunk('b')]),
    '/malformed': sse([completionChunk('a'), '{"choices":[{"text":"b"']),
    '/error-event': sse([
      completionChunk('a'),
      JSON.stringify({ error: { message: 'out of memory', code: 500 } }),
    ]),
    '/split-bytes': async (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const payload = `data: ${completionChunk('héllo')}\r\n\r\ndata: ${completionChunk('!', {}, 'stop')}\r\n\r\ndata: [DONE]\r\n\r\n`;
      const bytes = Buffer.from(payload, 'utf8');
      for (let i = 0; i < bytes.length; i += 7) {
        res.write(bytes.subarray(i, i + 7));
        await sleep(1);
      }
      res.end();
    },
  });
});

afterAll(async () => {
  await srv.close();
});

describe('streamRequest token accounting', () => {
  it('spreads a final usage total over chunks by text size and keeps the chunk count as the client count', async () => {
    const r = await run('/final-usage');
    expect(r.error).toBeNull();
    expect(r.chunkTokenSource).toBe('server-total-distributed');
    expect(r.chunkMs).toHaveLength(3);
    expect(r.chunkTokens).toEqual([1, 3, 1]);
    expect(r.outputTokensServer).toBe(5);
    expect(r.outputTokensClient).toBe(3);
    expect(r.inputTokensServer).toBe(7);
    expect(r.finishReason).toBe('length');
    expect(r.firstContentMs).toBe(r.chunkMs[0]);
    expect(r.sentMs).toBeLessThanOrEqual(r.headersMs!);
    expect(r.headersMs!).toBeLessThanOrEqual(r.chunkMs[0]);
    expect(r.endMs).toBeGreaterThanOrEqual(r.chunkMs[2]);
  });

  it('takes per-chunk counts from continuous usage, counts reasoning as tokens, and times first content separately', async () => {
    const r = await run('/continuous', 'openai-continuous-usage');
    expect(r.error).toBeNull();
    expect(r.chunkTokenSource).toBe('server-per-chunk');
    expect(r.chunkTokens).toEqual([1, 3, 2]);
    expect(r.outputTokensServer).toBe(6);
    expect(r.outputTokensClient).toBe(6);
    expect(r.firstContentMs).toBe(r.chunkMs[1]);
    expect(r.firstContentMs!).toBeGreaterThan(r.chunkMs[0]);
    expect(r.finishReason).toBe('stop');
  });

  it('reads SGLang native cumulative completion_tokens, verify steps and object finish reasons', async () => {
    const r = await run('/generate', 'native-cumulative');
    expect(r.error).toBeNull();
    expect(r.chunkTokens).toEqual([2, 3, 1]);
    expect(r.chunkTokenSource).toBe('server-per-chunk');
    expect(r.specVerifySteps).toBe(3);
    expect(r.inputTokensServer).toBe(3);
    expect(r.finishReason).toBe('length');
  });

  it('reassembles events split across reads, CRLF line ends and multi-byte characters', async () => {
    const r = await run('/split-bytes');
    expect(r.error).toBeNull();
    expect(r.chunkMs).toHaveLength(2);
    expect(r.chunkTokenSource).toBe('one-per-chunk');
    expect(r.finishReason).toBe('stop');
  });

  it('sends the headers it is given', async () => {
    await run('/final-usage', undefined, { headers: { authorization: 'Bearer sk-test' } });
    expect(srv.headers.at(-1)?.authorization).toBe('Bearer sk-test');
  });
});

describe('streamRequest failures become records with stable codes', () => {
  it('BG_E_CONNECT when nothing listens', async () => {
    const r = await streamRequest({
      baseUrl: 'http://127.0.0.1:1',
      request: req('/x'),
      originMs: origin,
      id: 1,
      levelIndex: 0,
      warmup: false,
      requestedOutputTokens: 4,
      timeouts: planDefaultTimeouts(),
    });
    expect(r.error?.code).toBe('BG_E_CONNECT');
    expect(r.headersMs).toBeNull();
  });

  it('BG_E_HTTP_STATUS with the first bytes of the body', async () => {
    const r = await run('/status-500');
    expect(r.error?.code).toBe('BG_E_HTTP_STATUS');
    expect(r.httpStatus).toBe(500);
    expect(r.error?.message).toContain('model exploded');
  });

  it('BG_E_NOT_SSE for an HTML answer', async () => {
    const r = await run('/html');
    expect(r.error?.code).toBe('BG_E_NOT_SSE');
    expect(r.error?.message).toContain('text/html');
    expect(r.error?.message).toContain('login page');
  });

  it('BG_E_TTFT_TIMEOUT when no token arrives in time', async () => {
    const r = await run('/silent', undefined, { timeouts: planDefaultTimeouts({ ttftMs: 60 }) });
    expect(r.error?.code).toBe('BG_E_TTFT_TIMEOUT');
  });

  it('BG_E_STALL_TIMEOUT when the stream goes quiet after a token', async () => {
    const r = await run('/stall', undefined, { timeouts: planDefaultTimeouts({ stallMs: 60 }) });
    expect(r.error?.code).toBe('BG_E_STALL_TIMEOUT');
    expect(r.chunkMs).toHaveLength(1);
  });

  it('BG_E_TOTAL_TIMEOUT when a steady stream runs too long', async () => {
    const r = await run('/slow-forever', undefined, {
      timeouts: planDefaultTimeouts({ totalMs: 80, stallMs: 1000 }),
    });
    expect(r.error?.code).toBe('BG_E_TOTAL_TIMEOUT');
    expect(r.chunkMs.length).toBeGreaterThan(0);
  });

  it('BG_E_STREAM_TRUNCATED when the stream ends without a finish', async () => {
    const r = await run('/truncated');
    expect(r.error?.code).toBe('BG_E_STREAM_TRUNCATED');
    expect(r.chunkMs).toHaveLength(2);
  });

  it('BG_E_STREAM_ERROR_EVENT naming the server error when the stream carries an error event', async () => {
    const r = await run('/error-event');
    expect(r.error?.code).toBe('BG_E_STREAM_ERROR_EVENT');
    expect(r.error?.message).toContain('out of memory');
  });

  it('BG_E_MALFORMED_CHUNK for a chunk that is not a JSON object', async () => {
    const r = await run('/malformed');
    expect(r.error?.code).toBe('BG_E_MALFORMED_CHUNK');
  });

  it('BG_E_ABORTED when the caller aborts mid-stream', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 40);
    const r = await run('/slow-forever', undefined, { signal: ac.signal });
    expect(r.error?.code).toBe('BG_E_ABORTED');
  });
});

describe('distributeTotal', () => {
  it('gives each chunk at least one token and the remainder by size', () => {
    expect(distributeTotal(10, [1, 1, 1, 1, 1])).toEqual([2, 2, 2, 2, 2]);
    expect(distributeTotal(6, [10, 0, 0])).toEqual([4, 1, 1]);
    expect(distributeTotal(2, [5, 5, 5])).toEqual([1, 1, 0]);
    expect(distributeTotal(7, [3, 1]).reduce((a, b) => a + b, 0)).toBe(7);
  });
});
