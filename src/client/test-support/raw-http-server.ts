// A raw-socket HTTP/1.1 server for connection tests: it answers each request as a script says
// (headers of its choosing, or hanging up without a byte, as a server closing an idle connection
// does), and counts connections: opened in all, open now, and the most open at once.

import net from 'node:net';

/** What to do with the `nth` request (1-based) on connection `conn` (1-based, in accept order). */
export type RawScript = (
  conn: number,
  nth: number,
) => { headers?: string[]; body?: string; closeAfter?: boolean } | 'hang-up';

export interface RawServer {
  port: number;
  opened: number;
  open: number;
  peakOpen: number;
  close(): Promise<void>;
}

export async function startRawServer(script: RawScript): Promise<RawServer> {
  const sockets = new Set<net.Socket>();
  const stats = { opened: 0, open: 0, peakOpen: 0 };
  const server = net.createServer((s) => {
    sockets.add(s);
    const conn = ++stats.opened;
    stats.open++;
    stats.peakOpen = Math.max(stats.peakOpen, stats.open);
    s.on('close', () => {
      sockets.delete(s);
      stats.open--;
    });
    s.on('error', () => s.destroy());
    let buffered = '';
    let nth = 0;
    s.on('data', (d) => {
      buffered += d.toString('latin1');
      for (let end = requestEnd(buffered); end > 0; end = requestEnd(buffered)) {
        buffered = buffered.slice(end);
        const answer = script(conn, ++nth);
        if (answer === 'hang-up') {
          s.destroy();
          return;
        }
        const body = answer.body ?? 'ok';
        const head = [
          'HTTP/1.1 200 OK',
          `Content-Length: ${Buffer.byteLength(body)}`,
          ...(answer.headers ?? []),
        ];
        s.write(`${head.join('\r\n')}\r\n\r\n${body}`);
        if (answer.closeAfter) {
          s.end();
          return;
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return Object.assign(stats, {
    port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  });
}

/** Offset after the first complete request (head and Content-Length body) in `text`, or 0. */
function requestEnd(text: string): number {
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return 0;
  const m = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd));
  const total = headEnd + 4 + (m ? Number(m[1]) : 0);
  return text.length >= total ? total : 0;
}
