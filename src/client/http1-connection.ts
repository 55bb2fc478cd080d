// One pooled raw HTTP/1.1 socket: reads go through `onread` into one shared buffer, each stamped with
// its arrival time before anything else, to the exchange that owns the connection; the connection
// counts the answers it carried and knows until when its server keeps it open (keep-alive.ts).
// Exchanges (http1-exchange.ts) run on it; the pool (http1-pool.ts) hands it out and takes it back.

import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { type KeepAliveHint, requestLimit, reuseWindowMs } from './keep-alive.js';

/** What a connection tells the exchange that owns it. */
export interface ConnectionOwner {
  /** A response byte arrived on this connection. */
  readonly answered: boolean;
  onBytes(buf: Buffer, nread: number, atMs: number): void;
  onConnected(): void;
  onSocketGone(err: NodeJS.ErrnoException | null): void;
}

/** What a connection and an exchange need from their pool. */
export interface ConnectionPool {
  readonly host: string;
  readonly port: number;
  /** An idle connection still inside its reuse window, or a new one (always new with `fresh`). */
  take(fresh: boolean): { conn: PooledConnection; reused: boolean };
  /** The server closes a connection right after each answer, whatever its headers say: do not reuse. */
  readonly closesAfterEach: boolean;
  noteClosedAfterAnswer(): void;
  release(conn: PooledConnection): void;
  forget(conn: PooledConnection): void;
}

/**
 * A connection the server closes this soon after an answer was closed because of that answer (llama-server
 * b7501 ends every streamed answer so, while announcing `Keep-Alive: timeout=5, max=100`), not by an idle timeout.
 */
const CLOSED_AFTER_ANSWER_MS = 500;

/** One socket's read buffer for every pooled connection: reads are delivered synchronously, one at a time. */
const sharedReadBuffer = Buffer.allocUnsafe(256 * 1024);

export class PooledConnection {
  readonly socket: net.Socket;
  owner: ConnectionOwner | null = null;
  connected = false;
  closed = false;
  /** Responses completed on this connection. */
  served = 0;
  /** Requests the server lets this connection carry (its `Keep-Alive: max=`). */
  limit = Number.POSITIVE_INFINITY;
  /** Monotonic ms after which the connection is not reused (the server's idle timeout, less a margin). */
  reuseUntilMs = 0;
  /** Monotonic ms when its last answer ended. */
  private lastAnswerEndMs = Number.NEGATIVE_INFINITY;
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
    this.lastAnswerEndMs = atMs;
    this.limit = requestLimit(this.limit, this.served, hint);
    const windowMs = reuseWindowMs(hint);
    this.reuseUntilMs = atMs + windowMs;
    return keepAlive && !this.pool.closesAfterEach && windowMs > 0 && this.served < this.limit;
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
    // closed while idle, or as it was reused before any answer byte, right after its last answer
    if ((o === null || !o.answered) && performance.now() - this.lastAnswerEndMs < CLOSED_AFTER_ANSWER_MS)
      this.pool.noteClosedAfterAnswer();
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
