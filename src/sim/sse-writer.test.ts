import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSse } from './http-util.js';
import { SseWriter } from './sse-writer.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server whose every response writes two steps of events: a, b in one step, c in the next. */
async function twoStepServer(): Promise<{ port: number; writes: number[] }> {
  const writes: number[] = [];
  const server = createServer((_req, res) => {
    startSse(res);
    const w = new SseWriter(res);
    w.write('data: a\n\n');
    w.write('data: b\n\n');
    setImmediate(() => {
      w.write('data: c\n\n');
      w.end();
      writes.push(w.writes);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return { port: typeof addr === 'object' && addr ? addr.port : 0, writes };
}

/** Sends raw requests on one connection and collects bytes until `done` says the text is complete. */
function raw(port: number, request: string, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(request));
    let text = '';
    s.on('data', (d) => {
      text += d.toString('latin1');
      if (done(text)) {
        s.destroy();
        resolve(text);
      }
    });
    s.on('error', reject);
    s.on('close', () => resolve(text));
  });
}

/** The chunk payloads of a chunked body (without the terminating empty chunk). */
function chunks(body: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', i);
    const size = Number.parseInt(body.slice(i, eol), 16);
    if (!(size > 0)) return out;
    out.push(body.slice(eol + 2, eol + 2 + size));
    expect(body.slice(eol + 2 + size, eol + 4 + size)).toBe('\r\n');
    i = eol + 4 + size;
  }
}

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';

describe('SseWriter', () => {
  it('sends the events of one step as one HTTP chunk and keeps the connection reusable', async () => {
    const { port, writes } = await twoStepServer();
    const text = await raw(port, GET + GET, (t) => t.split('0\r\n\r\n').length === 3);
    const responses = text.split('HTTP/1.1 200 OK\r\n').slice(1);
    expect(responses).toHaveLength(2);
    for (const r of responses) {
      expect(r).toMatch(/^content-type: text\/event-stream/im);
      expect(r).toMatch(/^transfer-encoding: chunked/im);
      const body = r.slice(r.indexOf('\r\n\r\n') + 4);
      expect(chunks(body)).toEqual(['data: a\n\ndata: b\n\n', 'data: c\n\n']);
      expect(body.endsWith('0\r\n\r\n')).toBe(true);
    }
    expect(writes).toEqual([2, 2]);
  });

  it('writes an unframed body to an HTTP/1.0 client', async () => {
    const { port } = await twoStepServer();
    const text = await raw(port, 'GET / HTTP/1.0\r\n\r\n', () => false);
    expect(text).not.toMatch(/transfer-encoding/i);
    expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe('data: a\n\ndata: b\n\ndata: c\n\n');
  });

  it('frames multi-byte text by its byte length', async () => {
    const server = createServer((_req, res) => {
      startSse(res);
      const w = new SseWriter(res);
      w.write('data: "modèle ✓"\n\n');
      w.end();
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(await res.text()).toBe('data: "modèle ✓"\n\n');
  });
});
