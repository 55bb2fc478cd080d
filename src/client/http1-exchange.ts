// One HTTP/1.1 exchange on a pooled raw socket: the connection wrapper (reads through `onread` into
// one shared buffer, each read timestamped first; how many requests it carried and until when the
// server keeps it open) and the run of one request on it, with the one retry on a fresh connection
// that a reused connection closed by the server before any answer byte deserves. The pool
// (http1-pool.ts) only hands connections out and takes them back.

import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Http1ResponseParser, type ResponseHead } from './http1-response-parser.js';
import { type KeepAliveHint, requestLimit, reuseWindowMs } from './keep-alive.js';

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

/** What a connection and an exchange need from their pool. */
export interface ConnectionPool {
  readonly host: string;
  readonly port: number;
  /** An idle connection still inside its reuse window, or a new one (always new with `fresh`). */
  take(fresh: boolean): { conn: PooledConnection; reused: boolean };
  release(conn: PooledConnection): void;
  forget(conn: PooledConnection): void;
}

/** One socket's read buffer for every pooled connection: reads are delivered synchronously, one at a time. */
const sharedReadBuffer = Buffer.allocUnsafe(256 * 1024);

export class PooledConnection {
  readonly socket: net.Socket;
  owner: ExchangeRun | null = null;
  connected = false;
  closed = false;
  /** Responses completed on this connection. */
  served = 0;
  /** Requests the server lets this connection carry (its `Keep-Alive: max=`). */
  limit = Number.POSITIVE_INFINITY;
  /** Monotonic ms after which the connection is not reused (the server's idle timeout, less a margin). */
  reuseUntilMs = 0;
  idleTimer: NodeJS.Timeout | null = null;
  readonly pool: ConnectionPool;

  constructor(pool: ConnectionPool) {
    this.pool = pool;
    this.socket = net.connect({
      host: pool.host,
      port: pool.port,
      noDelay: true,
      onread: {
        buffer: sharedReadBuffer,
        callback: (nread: number, buf: Uint8Array): boolean => {
          const atMs = performance.now();
          const o = this.owner;
          if (o === null) {
            // bytes on an idle connection: the server is out of step with us; drop the socket
            this.discard();
            return false;
          }
          o.onBytes(buf as Buffer, nread, atMs);
          return true;
        },
      },
    } as net.NetConnectOpts);
    this.socket.setNoDelay(true);
    this.socket.once('connect', () => {
      this.connected = true;
      this.owner?.onConnected();
    });
    this.socket.on('end', () => this.onGone(null));
    this.socket.on('error', (err: NodeJS.ErrnoException) => this.onGone(err));
    this.socket.on('close', () => this.onGone(null));
  }

  /**
   * Counts a completed response and says whether the connection may carry another request: the
   * server did not ask to close, its `max=` is not reached and its idle window is open.
   */
  completed(keepAlive: boolean, hint: KeepAliveHint | null, atMs: number): boolean {
    this.served++;
    this.limit = requestLimit(this.limit, this.served, hint);
    const windowMs = reuseWindowMs(hint);
    this.reuseUntilMs = atMs + windowMs;
    return keepAlive && windowMs > 0 && this.served < this.limit;
  }

  /** Connected ahead of any request: reusable for as long as a server keeps an idle connection. */
  opened(atMs: number): void {
    this.reuseUntilMs = atMs + reuseWindowMs(null);
  }

  /** Still worth reusing at `nowMs`. */
  usable(nowMs: number): boolean {
    return !this.closed && !this.socket.destroyed && nowMs < this.reuseUntilMs && this.served < this.limit;
  }

  private onGone(err: NodeJS.ErrnoException | null): void {
    if (this.closed) return;
    this.closed = true;
    this.pool.forget(this);
    const o = this.owner;
    this.owner = null;
    if (!this.socket.destroyed) this.socket.destroy();
    o?.onSocketGone(err);
  }

  discard(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.owner = null;
    if (!this.closed) {
      this.closed = true;
      this.pool.forget(this);
      this.socket.destroy();
    }
  }
}

export class ExchangeRun implements Exchange {
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
