import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTargetHttp } from './target-http.js';

// llama-server b4747 (cpp-httplib 0.19) waits for the body of a POST whose head says nothing about one,
// so `POST /slots/0?action=erase` with no Content-Length was never answered (seen on the real build).
// This server does the same: it answers a POST only once its head states a Content-Length.

let server: Server;
let url: string;
const heads: string[] = [];

beforeAll(async () => {
  server = createServer((socket) => {
    let seen = '';
    socket.on('data', (chunk) => {
      seen += chunk.toString('latin1');
      const end = seen.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = seen.slice(0, end);
      seen = seen.slice(end + 4);
      heads.push(head);
      if (/^POST /.test(head) && !/\r\ncontent-length: *\d+/i.test(head)) return; // waits for a body
      const body = '{"id_slot":0,"n_erased":0}';
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a POST with no body', () => {
  it('says Content-Length: 0, so a server that waits for a stated body answers it', async () => {
    const http = createTargetHttp(url);
    const doc = await http.request('/slots/0?action=erase', { method: 'POST', timeoutMs: 3000 });
    expect(doc.error).toBeUndefined();
    expect(doc.status).toBe(200);
    expect(heads.at(-1)).toMatch(/^POST \/slots\/0\?action=erase HTTP\/1\.1\r\n/);
    expect(heads.at(-1)).toMatch(/\r\nContent-Length: 0(\r\n|$)/);
  });
});
