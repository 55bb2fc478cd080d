// The simulator's HTTP listener: binds (with a clear error for a taken port or a non-local address),
// keeps the open connections and responses so a restart or a crash can drop them, and stops. It also
// serves connections the way the engine's HTTP server does (connection-policy.ts): an optional cap on
// connections served at once, each holding its "thread" until it closes (idle keep-alive ones
// included, as in llama.cpp's httplib), the engine's keep-alive timeout and request limit, and counts
// of what it saw (GET /_sim/connections).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { BenchgateError } from '../core/errors.js';
import { applyKeepAlive, type ConnectionPolicy, ConnectionStats, IdleCloser } from './connection-policy.js';
import type { ErrorSender } from './http-util.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function listenError(e: NodeJS.ErrnoException, host: string, port: number): BenchgateError {
  if (e.code === 'EADDRINUSE')
    return new BenchgateError(
      'BG_E_SIM',
      `Expected port ${port} on ${host} to be free; it is already in use.`,
    );
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
    return new BenchgateError(
      'BG_E_SIM',
      `Expected a local address to bind; ${host} is not one (${e.code}).`,
    );
  return new BenchgateError('BG_E_SIM', `Could not listen on ${host}:${port}: ${e.message}.`);
}

export class HttpListener {
  /** Parses HTTP on the connections handed to it; never listens itself. */
  private readonly server: Server;
  /** Accepts connections and hands them to `server` as threads free up. */
  private readonly front: TcpServer;
  private readonly sockets = new Set<Socket>();
  /** Sockets the server will close after the streamed answer it is ending (close-after-stream). */
  private readonly closing = new WeakSet<Socket>();
  /** Frees the "thread" a served socket holds (once), at its close or when the server starts closing it. */
  private readonly releasers = new WeakMap<Socket, () => void>();
  private readonly openResponses = new Set<ServerResponse>();
  /** Connections accepted and waiting for a thread, oldest first, each with how to serve it. */
  private readonly waiting: { socket: Socket; serve: () => void }[] = [];
  private busyThreads = 0;
  readonly stats: ConnectionStats;
  private readonly idle: IdleCloser;

  constructor(
    handler: RequestHandler,
    sendError: ErrorSender,
    private readonly policy: ConnectionPolicy,
  ) {
    this.stats = new ConnectionStats(policy);
    const served = new WeakMap<Socket, number>();
    this.server = createServer((req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      applyKeepAlive(policy, res, n);
      this.idle.busy(req.socket);
      const streamed = () => String(res.getHeader('content-type') ?? '').includes('event-stream');
      if (policy.closeAfterStream) this.markClosingAtEnd(req.socket, res, streamed);
      res.on('finish', () => {
        if (policy.closeAfterStream && streamed()) req.socket.destroy();
        else this.idle.idle(req.socket);
      });
      handler(req, res).catch((e: unknown) => {
        if (!res.headersSent)
          sendError(res, 500, `Internal error: ${(e as Error).message}`, 'InternalServerError');
        else res.destroy();
      });
    });
    // the engine's idle timeout is kept here (IdleCloser), to the engine's second: Node's own adds a buffer
    this.server.keepAliveTimeout = 0;
    this.idle = new IdleCloser(policy.keepAliveTimeoutS * 1000);
    this.front = createTcpServer({ pauseOnConnect: true }, (s) => this.accept(s));
  }

  private accept(s: Socket): void {
    this.sockets.add(s);
    // a socket this server is closing after its stream is not open, though its 'close' event (or the
    // write that precedes it) may come after the client's next connection is accepted
    let open = 0;
    for (const x of this.sockets) if (!x.destroyed && !this.closing.has(x)) open++;
    this.stats.opened(open);
    s.setNoDelay(true);
    let heldThread = false;
    const releaseThread = () => {
      if (!heldThread) return;
      heldThread = false;
      this.busyThreads--;
      this.serveWaiting();
    };
    this.releasers.set(s, releaseThread);
    s.on('close', () => {
      this.sockets.delete(s);
      const k = this.waiting.findIndex((w) => w.socket === s);
      if (k >= 0) this.waiting.splice(k, 1);
      releaseThread();
    });
    s.on('error', () => s.destroy());
    const serve = () => {
      heldThread = true;
      this.busyThreads++;
      this.server.emit('connection', s);
      s.resume();
      // like httplib, a served connection waits at most the keep-alive timeout for its first request too
      this.idle.idle(s);
    };
    if (this.threadFree()) serve();
    else {
      this.waiting.push({ socket: s, serve });
      this.stats.queued(this.waiting.length);
    }
  }

  /**
   * With close-after-stream, a connection is the server's to close from the moment its streamed answer
   * ends (res.end), before the last bytes are flushed: the client may connect anew on reading them.
   */
  private markClosingAtEnd(s: Socket, res: ServerResponse, streamed: () => boolean): void {
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    res.end = ((...a: unknown[]) => {
      if (streamed()) {
        this.closing.add(s);
        // the thread is done with a connection it closes itself: the next one is served at once
        this.releasers.get(s)?.();
      }
      return end(...a);
    }) as ServerResponse['end'];
  }

  private threadFree(): boolean {
    return this.policy.httpThreads === null || this.busyThreads < this.policy.httpThreads;
  }

  private serveWaiting(): void {
    while (this.waiting.length > 0 && this.threadFree()) {
      const next = this.waiting.shift();
      if (next && !next.socket.destroyed) next.serve();
    }
  }

  /** What the listener saw: open and peak connections, threads, the waiting queue. */
  connections(): Record<string, unknown> {
    return this.stats.snapshot(this.sockets.size, this.busyThreads, this.waiting.length);
  }

  /** Binds and resolves with the port really bound (port 0 picks a free one). */
  async listen(host: string, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      const onError = (e: NodeJS.ErrnoException) => reject(listenError(e, host, port));
      this.front.once('error', onError);
      this.front.listen({ port, host, backlog: 4096 }, () => {
        this.front.off('error', onError);
        resolve();
      });
    });
    const addr = this.front.address();
    return typeof addr === 'object' && addr ? addr.port : port;
  }

  /** Keeps a generation response until it closes, so a restart or crash can drop it. */
  track(res: ServerResponse): void {
    this.openResponses.add(res);
    res.on('close', () => this.openResponses.delete(res));
  }

  dropResponses(): void {
    for (const r of this.openResponses) r.destroy();
    this.openResponses.clear();
  }

  /** Ends (or, after a crash, destroys) every open response, stops listening, drops connections. */
  stop(crashed: boolean): void {
    for (const r of this.openResponses) {
      if (crashed) r.destroy();
      else r.end();
    }
    this.openResponses.clear();
    this.front.close();
    this.server.close();
    for (const s of this.sockets) s.destroy();
  }
}
