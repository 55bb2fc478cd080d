import { describe, expect, it } from 'vitest';
import { Http1ResponseParser, type ResponseHead } from './http1-response-parser.js';

function collect() {
  const out = { head: null as ResponseHead | null, body: '', completed: 0 };
  const parser = new Http1ResponseParser({
    onHead: (h) => {
      out.head = h;
    },
    onBody: (buf, s, e) => {
      out.body += buf.toString('latin1', s, e);
    },
    onComplete: () => {
      out.completed++;
    },
  });
  return { parser, out };
}

const chunk = (text: string, ext = ''): string =>
  `${Buffer.byteLength(text).toString(16)}${ext}\r\n${text}\r\n`;
const chunked =
  'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' +
  chunk('data: a') +
  chunk('\n\ndata: {"x":"é"}\n\ndata: b', ';ext=1') +
  '0\r\nX-Trailer: 1\r\n\r\n';

describe('Http1ResponseParser', () => {
  it('decodes a chunked body identically whatever the read boundaries', () => {
    const bytes = Buffer.from(chunked, 'utf8');
    const whole = collect();
    expect(whole.parser.feed(bytes, 0, bytes.length)).toBeNull();
    expect(whole.out.completed).toBe(1);
    expect(whole.parser.reusable).toBe(true);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { parser, out } = collect();
      expect(parser.feed(bytes, 0, cut)).toBeNull();
      expect(parser.feed(bytes, cut, bytes.length)).toBeNull();
      expect(out.body).toBe(whole.out.body);
      expect(out.completed).toBe(1);
    }
    expect(Buffer.from(whole.out.body, 'latin1').toString('utf8')).toBe(
      'data: a\n\ndata: {"x":"é"}\n\ndata: b',
    );
    expect(whole.out.head).toEqual({
      status: 200,
      contentType: 'text/event-stream',
      keepAlive: true,
      keepAliveHint: null,
      location: null,
    });
  });

  it('ends a content-length body after exactly that many bytes and skips an interim 100 answer', () => {
    const { parser, out } = collect();
    const text = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 5\r\n\r\nboom!';
    expect(parser.feed(Buffer.from(text), 0, text.length)).toBeNull();
    expect(out.head?.status).toBe(500);
    expect(out.body).toBe('boom!');
    expect(out.completed).toBe(1);
  });

  it('reads a body without framing until end-of-file and never reuses that connection', () => {
    const { parser, out } = collect();
    const text = 'HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>';
    parser.feed(Buffer.from(text), 0, text.length);
    expect(out.completed).toBe(0);
    expect(parser.end()).toBeNull();
    expect(out.body).toBe('<html>');
    expect(parser.reusable).toBe(false);
  });

  it('does not reuse a connection the server asked to close', () => {
    const { parser } = collect();
    const text = 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';
    parser.feed(Buffer.from(text), 0, text.length);
    expect(parser.complete).toBe(true);
    expect(parser.reusable).toBe(false);
  });

  it('reports a chunked body cut off by end-of-file, and a status line that is not HTTP', () => {
    const cut = collect();
    const text = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab';
    cut.parser.feed(Buffer.from(text), 0, text.length);
    expect(cut.parser.end()).toMatch(/before the response body was complete/);
    const bad = collect();
    const junk = 'SSH-2.0-OpenSSH\r\n\r\n';
    expect(bad.parser.feed(Buffer.from(junk), 0, junk.length)).toMatch(/expected an HTTP\/1.x status line/);
  });

  it('rejects a chunk-size line that is not hexadecimal', () => {
    const { parser } = collect();
    const text = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n';
    expect(parser.feed(Buffer.from(text), 0, text.length)).toMatch(/chunk-size/);
  });
});
