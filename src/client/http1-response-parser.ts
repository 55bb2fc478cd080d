// Incremental HTTP/1.1 response parser for the raw-socket transport: status line and headers once,
// then the body with its framing removed (chunked, content-length or read-until-close), fed
// straight from socket reads with no copy unless the head or a chunk-size line spans two reads.

import { type KeepAliveHint, parseKeepAlive } from './keep-alive.js';

export interface ResponseHead {
  status: number;
  /** Lower-cased content-type header value ('' when absent). */
  contentType: string;
  /** False when the server asked to close (Connection: close, HTTP/1.0 without keep-alive). */
  keepAlive: boolean;
  /** The server's `Keep-Alive: timeout=N, max=M` announcement; null when it sent none. */
  keepAliveHint: KeepAliveHint | null;
  /** The `Location` header (redirects); null when absent. */
  location: string | null;
}

export interface ResponseSink {
  onHead(head: ResponseHead): void;
  /** Body bytes buf[start, end); the buffer is reused after the call returns. */
  onBody(buf: Buffer, start: number, end: number): void;
  /** The body is complete according to its framing. */
  onComplete(): void;
}

const HEAD = 0;
const LENGTH_BODY = 1;
const CLOSE_BODY = 2;
const CHUNK_SIZE = 3;
const CHUNK_DATA = 4;
const CHUNK_DATA_END = 5;
const TRAILERS = 6;
const DONE = 7;

const MAX_HEAD_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

export class Http1ResponseParser {
  private state = HEAD;
  /** Head bytes carried over from earlier reads (rare: a head split across reads). */
  private partialHead: Buffer | null = null;
  /** Bytes left in the current chunk or content-length body. */
  private remaining = 0;
  private chunkSize = 0;
  private sizeDigits = 0;
  private inChunkExt = false;
  private trailerLineBytes = 0;
  private keepAlive = true;
  private readonly sink: ResponseSink;

  constructor(sink: ResponseSink) {
    this.sink = sink;
  }

  /** True once the body is complete and the connection may carry another request. */
  get reusable(): boolean {
    return this.state === DONE && this.keepAlive;
  }

  get complete(): boolean {
    return this.state === DONE;
  }

  get headParsed(): boolean {
    return this.state !== HEAD;
  }

  /** Feeds bytes buf[start, end). Returns an error sentence when the bytes are not valid HTTP/1.x. */
  feed(buf: Buffer, start: number, end: number): string | null {
    let i = start;
    while (i < end) {
      switch (this.state) {
        case HEAD: {
          const r = this.feedHead(buf, i, end);
          if (typeof r === 'string') return r;
          i = r;
          break;
        }
        case LENGTH_BODY: {
          const n = Math.min(this.remaining, end - i);
          this.sink.onBody(buf, i, i + n);
          i += n;
          this.remaining -= n;
          if (this.remaining === 0) this.finish();
          break;
        }
        case CLOSE_BODY:
          this.sink.onBody(buf, i, end);
          return null;
        case CHUNK_SIZE: {
          const c = buf[i++];
          if (c === 10) {
            if (this.sizeDigits === 0) return 'a chunk-size line of the chunked body has no hex digits.';
            this.remaining = this.chunkSize;
            this.chunkSize = 0;
            this.sizeDigits = 0;
            this.inChunkExt = false;
            if (this.remaining === 0) {
              this.state = TRAILERS;
              this.trailerLineBytes = 0;
            } else this.state = CHUNK_DATA;
          } else if (c === 13 || this.inChunkExt) {
            // CR before LF, or chunk extensions after ';' are ignored
          } else if (c === 59 || c === 32 || c === 9) {
            this.inChunkExt = true;
          } else {
            const d = hexValue(c);
            if (d < 0 || this.sizeDigits >= 12)
              return `a chunk-size line of the chunked body holds the byte 0x${c.toString(16)}.`;
            this.chunkSize = this.chunkSize * 16 + d;
            this.sizeDigits++;
          }
          break;
        }
        case CHUNK_DATA: {
          const n = Math.min(this.remaining, end - i);
          this.sink.onBody(buf, i, i + n);
          i += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = CHUNK_DATA_END;
          break;
        }
        case CHUNK_DATA_END: {
          const c = buf[i++];
          if (c === 10) this.state = CHUNK_SIZE;
          else if (c !== 13) return 'a chunk of the chunked body is longer than its declared size.';
          break;
        }
        case TRAILERS: {
          const c = buf[i++];
          if (c === 10) {
            if (this.trailerLineBytes === 0) this.finish();
            this.trailerLineBytes = 0;
          } else if (c !== 13) this.trailerLineBytes++;
          break;
        }
        default:
          // bytes after a complete response: the connection is out of step, never reuse it
          this.keepAlive = false;
          return null;
      }
    }
    return null;
  }

  /** The socket reached end-of-file. Returns an error sentence unless the body was complete or read-until-close. */
  end(): string | null {
    if (this.state === DONE) return null;
    if (this.state === CLOSE_BODY) {
      this.finish();
      return null;
    }
    return this.state === HEAD
      ? 'the connection closed before a complete response head arrived.'
      : 'the connection closed before the response body was complete.';
  }

  private finish(): void {
    this.state = DONE;
    this.sink.onComplete();
  }

  /** Consumes head bytes; returns the offset after the head, or an error sentence. */
  private feedHead(buf: Buffer, start: number, end: number): number | string {
    let head: Buffer;
    let after: number;
    if (this.partialHead === null) {
      const at = buf.indexOf(HEAD_END, start);
      if (at >= 0 && at + 4 <= end) {
        head = buf.subarray(start, at);
        after = at + 4;
      } else {
        this.partialHead = Buffer.from(buf.subarray(start, end));
        return this.headTooLong() ?? end;
      }
    } else {
      const joined = Buffer.concat([this.partialHead, buf.subarray(start, end)]);
      const at = joined.indexOf(HEAD_END);
      if (at < 0) {
        this.partialHead = joined;
        return this.headTooLong() ?? end;
      }
      head = joined.subarray(0, at);
      after = end - (joined.length - (at + 4));
      this.partialHead = null;
    }
    const err = this.parseHead(head.toString('latin1'));
    return err ?? after;
  }

  private headTooLong(): string | null {
    return this.partialHead !== null && this.partialHead.length > MAX_HEAD_BYTES
      ? `the response head is longer than ${MAX_HEAD_BYTES} bytes.`
      : null;
  }

  private parseHead(text: string): string | null {
    const lines = text.split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0]);
    if (!m) return `expected an HTTP/1.x status line, got "${lines[0].slice(0, 80)}".`;
    const status = Number(m[2]);
    if (status >= 100 && status < 200) return null; // interim answer (100 Continue): the real head follows
    let contentType = '';
    let contentLength = -1;
    let chunked = false;
    let connection = '';
    let keepAliveHint: KeepAliveHint | null = null;
    let location: string | null = null;
    for (let k = 1; k < lines.length; k++) {
      const line = lines[k];
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-type') contentType = value.toLowerCase();
      else if (name === 'content-length') contentLength = /^\d+$/.test(value) ? Number(value) : -2;
      else if (name === 'transfer-encoding') chunked = value.toLowerCase().endsWith('chunked');
      else if (name === 'connection') connection = value.toLowerCase();
      else if (name === 'keep-alive') keepAliveHint = parseKeepAlive(value);
      else if (name === 'location') location = value;
    }
    if (contentLength === -2 && !chunked) return 'the response has an invalid content-length header.';
    this.keepAlive = m[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    this.sink.onHead({ status, contentType, keepAlive: this.keepAlive, keepAliveHint, location });
    if (status === 204 || status === 304) {
      this.finish();
    } else if (chunked) {
      this.state = CHUNK_SIZE;
    } else if (contentLength >= 0) {
      this.remaining = contentLength;
      this.state = LENGTH_BODY;
      if (contentLength === 0) this.finish();
    } else {
      this.state = CLOSE_BODY;
      this.keepAlive = false;
    }
    return null;
  }
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}
