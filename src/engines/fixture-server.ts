// Test support: a tiny real HTTP server on 127.0.0.1, port 0, that serves fixed documents by path,
// so adapters' live reads are tested against real sockets instead of mocks.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixtureRoute {
  status?: number;
  contentType?: string;
  body: string;
}

export interface FixtureServer {
  url: string;
  /** Paths requested so far, in order. */
  requested: string[];
  close(): Promise<void>;
}

/** Serves `routes` (path → document); unknown paths answer 404 with a JSON error like FastAPI. */
export async function startFixtureServer(
  routes: Record<string, FixtureRoute | object | string>,
): Promise<FixtureServer> {
  const requested: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    requested.push(path);
    req.resume();
    const route = routes[path];
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"detail":"Not Found"}');
      return;
    }
    const r: FixtureRoute =
      typeof route === 'string'
        ? { body: route, contentType: 'text/plain; version=0.0.4' }
        : 'body' in route && typeof (route as FixtureRoute).body === 'string'
          ? (route as FixtureRoute)
          : { body: JSON.stringify(route), contentType: 'application/json' };
    res.writeHead(r.status ?? 200, { 'content-type': r.contentType ?? 'application/json' });
    res.end(r.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
