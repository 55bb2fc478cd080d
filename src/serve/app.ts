// `benchgate serve`: the local dashboard over the results store (Hono on Node's HTTP server). Each page
// opens the store read-only for the request and closes it, so `bench` can add its run meanwhile; the live
// view streams server-sent events built from the running runs' files. Bound to 127.0.0.1 unless told.

import { serve as serveHttp } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { isBenchgateError } from '../core/errors.js';
import { openDb, type StoreDb } from '../store/db.js';
import { openStore, type StoreLocation } from '../store/store.js';
import { comparePage, historyPage, paretoPage } from './analysis-pages.js';
import { errorPage } from './layout.js';
import { findLiveRuns } from './live-discover.js';
import { livePage } from './live-page.js';
import { LiveRun, type LiveState } from './live-run.js';
import { diffPage, runPage, runsPage } from './runs-page.js';

export interface DashboardOptions {
  location: StoreLocation;
  host?: string;
  port?: number;
  /** How often the live view re-reads the running runs' files. */
  livePollMs?: number;
  note?: (line: string) => void;
}

export interface Dashboard {
  url: string;
  close(): Promise<void>;
}

async function withDb<T>(loc: StoreLocation, fn: (db: StoreDb) => Promise<T>): Promise<T> {
  const db = await openDb(loc.path, { sandboxed: true, waitMs: 5000 });
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

/** The results directories the live view watches: the store's recorded roots and the default one. */
async function liveRoots(loc: StoreLocation): Promise<string[]> {
  const recorded = await withDb(loc, (db) => db.all('SELECT dir FROM roots')).catch(() => []);
  return [...new Set([...loc.roots, ...recorded.map((r) => String(r.dir))])];
}

export function buildApp(opts: DashboardOptions): Hono {
  const loc = opts.location;
  const pollMs = opts.livePollMs ?? 1000;
  const app = new Hono();
  /** A page rendered from the store; a BenchgateError (no such run, bad filter) is a page saying so. */
  const html = async (c: Context, active: string, render: (db: StoreDb) => Promise<string>) => {
    try {
      return c.html(await withDb(loc, render));
    } catch (e) {
      if (!isBenchgateError(e)) throw e;
      return c.html(errorPage(active, `${e.message} [${e.code}]`), e.code === 'BG_E_USAGE' ? 400 : 500);
    }
  };
  app.get('/', (c) => html(c, '/', (db) => runsPage(db, c.req.query())));
  app.get('/run', (c) => html(c, '/', (db) => runPage(db, c.req.query('id') ?? '')));
  app.get('/diff', (c) => html(c, '/', (db) => diffPage(db, c.req.queries('run') ?? [])));
  app.get('/compare', (c) =>
    html(c, '/', (db) => comparePage(db, c.req.queries('run') ?? [], c.req.query('baseline'))),
  );
  app.get('/history', (c) => html(c, '/history', (db) => historyPage(db, c.req.query())));
  app.get('/pareto', (c) => html(c, '/pareto', (db) => paretoPage(db, c.req.query('matrix'))));
  app.get('/live', (c) => c.html(livePage()));
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/api/live', (c) =>
    streamSSE(c, async (stream) => {
      const roots = await liveRoots(loc);
      const watched = new Map<string, LiveRun>();
      while (!stream.aborted) {
        for (const dir of findLiveRuns(roots)) if (!watched.has(dir)) watched.set(dir, new LiveRun(dir));
        const runs: LiveState[] = [...watched.values()].map((r) => r.state());
        await stream.writeSSE({ event: 'state', data: JSON.stringify({ at: Date.now(), runs }) });
        await stream.sleep(pollMs);
      }
    }),
  );
  return app;
}

/**
 * Takes the port first (a taken port fails before any store work), then makes sure the store exists and is
 * current, then serves the dashboard; resolves once both are done.
 */
export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  const app = buildApp(opts);
  const host = opts.host ?? '127.0.0.1';
  const listening = await new Promise<Dashboard>((resolve, reject) => {
    const server = serveHttp({ fetch: app.fetch, hostname: host, port: opts.port ?? 0 }, (info) => {
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${info.port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.on('error', reject);
  });
  try {
    (await openStore(opts.location, opts.note ?? (() => {}))).db.close();
  } catch (e) {
    await listening.close();
    throw e;
  }
  return listening;
}
