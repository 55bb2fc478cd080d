// A deliberately cheap SSE server for `npm run bench:client`, run in its own process so its CPU is
// not billed to the client: every tick it writes one pre-rendered chunk to every open stream.
// argv: tickMs [eventsPerWrite]: with eventsPerWrite > 1 each tick writes that many events in one
// write (what a batching server under speculative decoding does). Prints "port N" once listening.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

const tickMs = Number(process.argv[2] ?? 5);
const eventsPerWrite = Math.max(1, Number(process.argv[3] ?? 1));
const CHUNK = Buffer.from(
  'data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" tok","logprobs":null,"finish_reason":null}]}\n\n',
);
const LAST = Buffer.from(
  'data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" end","logprobs":null,"finish_reason":"length"}]}\n\n',
);

interface Stream {
  res: http.ServerResponse;
  left: number;
  promptTokens: number;
  total: number;
}
const streams = new Set<Stream>();

const server = http.createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (c: Buffer) => parts.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { max_tokens?: number };
    const total = Math.max(1, body.max_tokens ?? 16);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    streams.add({ res, left: total, promptTokens: 8, total });
  });
});
server.keepAliveTimeout = 60_000;

const CHUNKS = Buffer.concat(Array.from({ length: eventsPerWrite }, () => CHUNK));

setInterval(() => {
  for (const s of streams) {
    if (s.left > eventsPerWrite) {
      s.left -= eventsPerWrite;
      s.res.write(CHUNKS);
    } else {
      s.left--;
      if (s.left > 0) s.res.write(Buffer.concat(Array.from({ length: s.left }, () => CHUNK)));
      s.res.write(LAST);
      s.res.end(
        `data: {"id":"cmpl-1","choices":[],"usage":{"prompt_tokens":${s.promptTokens},"completion_tokens":${s.total}}}\n\ndata: [DONE]\n\n`,
      );
      streams.delete(s);
    }
  }
}, tickMs);

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
