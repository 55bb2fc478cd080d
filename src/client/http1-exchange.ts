// One HTTP/1.1 exchange on a pooled raw socket (http1-connection.ts): the request written, the answer
// parsed as it arrives, and the one retry on a fresh connection that a reused connection closed by the
// server before any answer byte deserves. The pool (http1-pool.ts) only hands connections out and takes
// them back.

import { performance } from 'node:perf_hooks';
import type { ConnectionOwner, ConnectionPool, PooledConnection } from './http1-connection.js';
import { Http1ResponseParser, type ResponseHead } from './http1-response-parser.js';
import type { KeepAliveHint } from './keep-alive.js';

export type { ConnectionPool } from './http1-connection.js';

export interface ExchangeHandlers {
  /** Response head parsed; atMs is the monotonic arrival time of the read that completed it. */
  onHead(head: ResponseHead, atMs: number): void;
  /** Body bytes with framing removed, valid only during the call; atMs as above. */
  onBody(buf: Buffer, start: number, end: number, atMs: number): void;
  /** The body ended (framing complete, or end-of-file for a body without framing). */
  onEnd(atMs: number): void;
  /** The exchange failed: 'connect' before any response byte, 'response' after. */
  onFail(phase: 'connect' | 'response', message: string, atMs: number): void;
  /** The request is being sent again on a fresh connection: the reused one closed before any answer. */
  onRetry?(reason: string): void;
}

export interface Exchange {
  /** Ends the exchange now and discards its connection (abort, timeout, early finish). */
  cancel(): void;
}

export class ExchangeRun implements Exchange, ConnectionOwner {
  private conn: PooledConnection | null = null;
  private reused = false;
  private retried = false;
  private gotBytes = false;
  private finished = false;
  private hint: KeepAliveHint | null = null;
  private connectTimer: NodeJS.Timeout | null = null;
  private parser: Http1ResponseParser;
  /** Arrival time of the read being parsed, for the sink callbacks. */
  private atMs = 0;
  private readonly pool: ConnectionPool;
  private readonly requestBytes: Buffer;
  private readonly h: ExchangeHandlers;
  private readonly connectTimeoutMs: number;

  constructor(pool: ConnectionPool, requestBytes: Buffer, h: ExchangeHandlers, connectTimeoutMs: number) {
    this.pool = pool;
    this.requestBytes = requestBytes;
    this.h = h;
    this.connectTimeoutMs = connectTimeoutMs;
    this.parser = this.newParser();
  }

  private newParser(): Http1ResponseParser {
    return new Http1ResponseParser({
      onHead: (head) => {
        this.hint = head.keepAliveHint;
        this.h.onHead(head, this.atMs);
      },
      onBody: (buf, start, end) => {
        // the rest of a read after the exchange was ended (a cap passed, a cancel) is not delivered
        if (!this.finished) this.h.onBody(buf, start, end, this.atMs);
      },
      onComplete: () => {
        // released after the read that completed the body has been handled (see onBytes)
      },
    });
  }

  /** Sends the request on a pooled connection (a new one when `fresh`). */
  start(fresh = false): void {
    const { conn, reused } = this.pool.take(fresh);
    this.conn = conn;
    this.reused = reused;
    conn.owner = this;
    if (conn.connected) {
      conn.socket.write(this.requestBytes);
    } else {
      this.connectTimer = setTimeout(() => {
        this.fail(
          'connect',
          `could not connect to ${this.pool.host}:${this.pool.port} within ${this.connectTimeoutMs} ms.`,
        );
      }, this.connectTimeoutMs);
      // written now, flushed by the socket as soon as it connects (one buffer, Nagle off)
      conn.socket.write(this.requestBytes);
    }
  }

  /** A response byte arrived on the current connection. */
  get answered(): boolean {
    return this.gotBytes;
  }

  /** Ended: answered, failed or cancelled (a queued run cancelled before it started included). */
  get done(): boolean {
    return this.finished;
  }

  onConnected(): void {
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = null;
  }

  onBytes(buf: Buffer, nread: number, atMs: number): void {
    if (this.finished) return;
    this.gotBytes = true;
    this.atMs = atMs;
    const err = this.parser.feed(buf, 0, nread);
    if (this.finished) return;
    if (err !== null) {
      this.fail(
        this.parser.headParsed ? 'response' : 'connect',
        `the target's answer is not valid HTTP/1.1: ${err}`,
      );
      return;
    }
    if (this.parser.complete) {
      this.finished = true;
      const conn = this.conn;
      this.conn = null;
      if (conn) {
        const again = conn.completed(this.parser.reusable, this.hint, atMs);
        if (again) this.pool.release(conn);
        else conn.discard();
      }
      this.h.onEnd(atMs);
    }
  }

  onSocketGone(err: NodeJS.ErrnoException | null): void {
    if (this.finished) return;
    const atMs = performance.now();
    this.conn = null;
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = null;
    if (!this.gotBytes && this.reused && !this.retried) {
      // the server closed the idle connection as we reused it: one attempt on a new connection
      // (another idle one may have been closed by the same server timeout)
      this.retried = true;
      this.parser = this.newParser();
      this.h.onRetry?.(
        `a reused connection was closed by the server before any answer (${err?.code ?? 'end of file'})`,
      );
      this.start(true);
      return;
    }
    if (err === null && this.parser.headParsed) {
      this.atMs = atMs;
      const endErr = this.parser.end();
      if (endErr === null) {
        this.finished = true;
        this.h.onEnd(atMs);
        return;
      }
      this.finished = true;
      this.h.onFail('response', endErr, atMs);
      return;
    }
    this.finished = true;
    const why = err ? (err.code ?? err.message) : 'closed by the server';
    this.h.onFail(
      this.parser.headParsed ? 'response' : 'connect',
      this.parser.headParsed
        ? `the connection broke mid-stream (${why})`
        : `could not reach ${this.pool.host}:${this.pool.port} (${why})`,
      atMs,
    );
  }

  /** Ends the exchange as failed (also a queued one that never started: its pool was destroyed). */
  fail(phase: 'connect' | 'response', message: string): void {
    if (this.finished) return;
    this.cancel();
    this.h.onFail(phase, message, performance.now());
  }

  /** Ends the exchange without reporting: stops the connect timer and discards the connection. */
  cancel(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = null;
    const conn = this.conn;
    this.conn = null;
    conn?.discard();
  }
}
