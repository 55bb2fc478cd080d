// The simulator's HTTP listener: binds (with a clear error for a taken port or a non-local address),
// keeps the open connections and responses so a restart or a crash can drop them, and stops.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { BenchgateError } from '../core/errors.js';
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
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly openResponses = new Set<ServerResponse>();

  constructor(handler: RequestHandler, sendError: ErrorSender, keepAliveTimeoutMs = 65_000) {
    this.server = createServer((req, res) => {
      handler(req, res).catch((e: unknown) => {
        if (!res.headersSent)
          sendError(res, 500, `Internal error: ${(e as Error).message}`, 'InternalServerError');
        else res.destroy();
      });
    });
    this.server.keepAliveTimeout = keepAliveTimeoutMs;
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.setNoDelay(true);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  /** Binds and resolves with the port really bound (port 0 picks a free one). */
  async listen(host: string, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      const onError = (e: NodeJS.ErrnoException) => reject(listenError(e, host, port));
      this.server.once('error', onError);
      this.server.listen({ port, host, backlog: 4096 }, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    const addr = this.server.address();
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
    this.server.close();
    for (const s of this.sockets) s.destroy();
  }
}
