// Raw-socket HTTP/1.1 connections to one host:port, kept alive between requests (the exchange on one
// socket is http1-exchange.ts's). A connection is reused only inside the window its server keeps it
// open (keep-alive.ts) and closed when that window ends, so an idle socket neither fails the next
// request nor holds one of the server's HTTP threads for nothing. A pool may be capped
// (`maxConnections`): requests then wait, in order, for a connection (the control pool); the load
// pool is uncapped, since its concurrency is the level runner's job. Idle sockets are unref'd, so a
// finished command exits at once.

import { performance } from 'node:perf_hooks';
import { type ConnectionPool, PooledConnection } from './http1-connection.js';
import { type Exchange, type ExchangeHandlers, ExchangeRun } from './http1-exchange.js';

export type { Exchange, ExchangeHandlers } from './http1-exchange.js';

export interface PoolOptions {
  /** Most connections open at once; requests beyond wait for one (default: no cap). */
  maxConnections?: number;
  /** An idle connection is closed after this long even when the server would keep it (default: its window). */
  maxIdleMs?: number;
}

export class Http1Pool implements ConnectionPool {
  readonly host: string;
  readonly port: number;
  private readonly idle: PooledConnection[] = [];
  private readonly all = new Set<PooledConnection>();
  private readonly waiting: ExchangeRun[] = [];
  private readonly maxConnections: number;
  private readonly maxIdleMs: number;
  private pumpQueued = false;
  private closedAfterAnswer = false;

  constructor(host: string, port: number, opts: PoolOptions = {}) {
    this.host = host;
    this.port = port;
    this.maxConnections = opts.maxConnections ?? Number.POSITIVE_INFINITY;
    this.maxIdleMs = opts.maxIdleMs ?? Number.POSITIVE_INFINITY;
  }

  /**
   * The server closed a connection right after an answer (a streamed one, for llama-server b7501):
   * from then on every request takes a new connection instead of racing the server's close.
   */
  get closesAfterEach(): boolean {
    return this.closedAfterAnswer;
  }

  noteClosedAfterAnswer(): void {
    this.closedAfterAnswer = true;
  }

  /** Idle connections waiting for reuse (for tests and diagnostics). */
  get idleCount(): number {
    return this.idle.length;
  }

  /** Connections opened and not yet closed. */
  get openCount(): number {
    return this.all.size;
  }

  /**
   * Sends `requestBytes` (a complete HTTP/1.1 request) on a reusable idle connection or a new one and
   * streams the answer to `handlers`; in a capped pool it may wait for a connection first. A reused
   * connection that fails before any response byte is retried once on a new connection.
   */
  exchange(requestBytes: Buffer, handlers: ExchangeHandlers, connectTimeoutMs: number): Exchange {
    const run = new ExchangeRun(this, requestBytes, handlers, connectTimeoutMs);
    if (this.waiting.length === 0 && this.canStart()) run.start();
    else this.waiting.push(run);
    return run;
  }

  private canStart(): boolean {
    return this.all.size < this.maxConnections || this.idle.some((c) => c.usable(performance.now()));
  }

  take(fresh: boolean): { conn: PooledConnection; reused: boolean } {
    const now = performance.now();
    for (let c = fresh ? undefined : this.idle.pop(); c !== undefined; c = this.idle.pop()) {
      if (c.usable(now)) {
        if (c.idleTimer) clearTimeout(c.idleTimer);
        c.idleTimer = null;
        c.socket.ref();
        return { conn: c, reused: true };
      }
      c.discard();
    }
    const conn = new PooledConnection(this);
    this.all.add(conn);
    return { conn, reused: false };
  }

  release(conn: PooledConnection): void {
    conn.owner = null;
    if (conn.closed) return;
    // an idle keep-alive socket must not keep the process alive (it is ref'd again when taken)
    conn.socket.unref();
    this.idle.push(conn);
    const closeInMs = Math.min(this.maxIdleMs, conn.reuseUntilMs - performance.now());
    conn.idleTimer = setTimeout(() => conn.discard(), Math.max(0, closeInMs));
    conn.idleTimer.unref();
    this.schedulePump();
  }

  forget(conn: PooledConnection): void {
    this.all.delete(conn);
    const k = this.idle.indexOf(conn);
    if (k >= 0) this.idle.splice(k, 1);
    this.schedulePump();
  }

  /**
   * Starts waiting requests once the current event is done: a retry that follows a forget in the same
   * call takes the freed place first, so the cap holds.
   */
  private schedulePump(): void {
    if (this.waiting.length === 0 || this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      while (this.waiting.length > 0 && this.canStart()) {
        const run = this.waiting.shift() as ExchangeRun;
        if (!run.done) run.start();
      }
    });
  }

  /**
   * Makes exactly `count` connections idle and ready, so a level's first requests neither pay the TCP
   * handshake inside their TTFT nor leave the previous, larger level's connections open. Resolves when
   * the new ones are connected (failures are left to requests).
   */
  async preconnect(count: number, timeoutMs: number): Promise<void> {
    const now = performance.now();
    for (const c of this.idle.filter((c) => !c.usable(now))) c.discard();
    while (this.idle.length > count) this.idle[0].discard();
    const opening: Promise<void>[] = [];
    for (let k = this.idle.length; k < count && this.all.size < this.maxConnections; k++) {
      const conn = new PooledConnection(this);
      this.all.add(conn);
      opening.push(connected(conn, timeoutMs).then(() => this.settleOpened(conn)));
    }
    await Promise.all(opening);
  }

  private settleOpened(conn: PooledConnection): void {
    if (!conn.closed && conn.connected && conn.owner === null) {
      conn.opened(performance.now());
      this.release(conn);
    } else if (!conn.connected) conn.discard();
  }

  /** Closes the idle connections (the busy ones finish their requests). */
  closeIdle(): void {
    for (const c of this.idle.splice(0)) c.discard();
  }

  /** Closes every connection, idle or busy; requests still waiting for one fail. */
  destroy(): void {
    for (const c of [...this.all]) c.discard();
    this.idle.length = 0;
    for (const run of this.waiting.splice(0))
      run.fail(
        'connect',
        `the connections to ${this.host}:${this.port} were closed before this request was sent.`,
      );
  }
}

function connected(conn: PooledConnection, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(done, timeoutMs);
    function done(): void {
      clearTimeout(t);
      resolve();
    }
    conn.socket.once('connect', done);
    conn.socket.once('close', done);
  });
}

const pools = new Map<string, Http1Pool>();

/** The shared load pool for host:port (uncapped: the level runner bounds what is in flight). */
export function poolFor(host: string, port: number): Http1Pool {
  const key = `${host}:${port}`;
  let p = pools.get(key);
  if (!p) {
    p = new Http1Pool(host, port);
    pools.set(key, p);
  }
  return p;
}

/** Closes every pooled load connection (end of a run). */
export function destroyPools(): void {
  for (const p of pools.values()) p.destroy();
  pools.clear();
}
