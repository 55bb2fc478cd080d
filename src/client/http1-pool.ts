// Raw-socket HTTP/1.1 transport for plain-http targets: a keep-alive pool of net.Sockets per origin
// (the exchange on one socket is http1-exchange.ts's). Idle sockets are unref'd, so a finished
// command exits at once instead of waiting for the server to close its kept-alive connections.

import {
  type ConnectionPool,
  type Exchange,
  type ExchangeHandlers,
  ExchangeRun,
  PooledConnection,
} from './http1-exchange.js';

export type { Exchange, ExchangeHandlers } from './http1-exchange.js';

const IDLE_TIMEOUT_MS = 30_000;

/** Keep-alive connections to one host:port. Requests never wait for a socket: concurrency is the caller's job. */
export class Http1Pool implements ConnectionPool {
  readonly host: string;
  readonly port: number;
  private readonly idle: PooledConnection[] = [];
  private readonly all = new Set<PooledConnection>();
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(host: string, port: number) {
    this.host = host;
    this.port = port;
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
   * Sends `requestBytes` (a complete HTTP/1.1 request) on an idle connection or a new one and
   * streams the answer to `handlers`. A reused connection that fails before any response byte
   * is retried once on a new connection (the server closed it while idle).
   */
  exchange(requestBytes: Buffer, handlers: ExchangeHandlers, connectTimeoutMs: number): Exchange {
    const run = new ExchangeRun(this, requestBytes, handlers, connectTimeoutMs);
    run.start();
    return run;
  }

  take(): { conn: PooledConnection; reused: boolean } {
    for (let c = this.idle.pop(); c !== undefined; c = this.idle.pop()) {
      if (!c.closed && !c.socket.destroyed) {
        c.socket.ref();
        return { conn: c, reused: true };
      }
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
    this.armIdleSweep();
  }

  forget(conn: PooledConnection): void {
    this.all.delete(conn);
    const k = this.idle.indexOf(conn);
    if (k >= 0) this.idle.splice(k, 1);
  }

  /**
   * Opens connections until `count` are idle, so a level's first requests do not pay the TCP
   * handshake inside their TTFT. Resolves when they are connected (failures are left to requests).
   */
  async preconnect(count: number, timeoutMs: number): Promise<void> {
    const opening: Promise<void>[] = [];
    for (let k = this.idle.length; k < count; k++) {
      const conn = new PooledConnection(this);
      this.all.add(conn);
      opening.push(
        new Promise<void>((resolve) => {
          const t = setTimeout(done, timeoutMs);
          function done(): void {
            clearTimeout(t);
            resolve();
          }
          conn.socket.once('connect', done);
          conn.socket.once('close', done);
        }).then(() => {
          if (!conn.closed && conn.connected && conn.owner === null) this.release(conn);
          else if (!conn.connected) conn.discard();
        }),
      );
    }
    await Promise.all(opening);
  }

  /** Closes every connection, idle or busy. */
  destroy(): void {
    for (const c of [...this.all]) c.discard();
    this.idle.length = 0;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Drops the whole idle set after a quiet period so a finished run does not hold sockets open. */
  private armIdleSweep(): void {
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        for (const c of this.idle.splice(0)) c.discard();
      }, IDLE_TIMEOUT_MS);
      this.idleTimer.unref();
    }
  }
}

const pools = new Map<string, Http1Pool>();

/** The shared pool for host:port. */
export function poolFor(host: string, port: number): Http1Pool {
  const key = `${host}:${port}`;
  let p = pools.get(key);
  if (!p) {
    p = new Http1Pool(host, port);
    pools.set(key, p);
  }
  return p;
}

/** Closes every pooled connection (end of a run). */
export function destroyPools(): void {
  for (const p of pools.values()) p.destroy();
  pools.clear();
}
