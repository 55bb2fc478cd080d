// `benchgate serve`: flag parsing and wiring only; the dashboard is src/serve/app.ts. Runs until Ctrl-C.

import type { Command } from 'commander';
import { BenchgateError } from '../../core/errors.js';
import { LocalHost } from '../../hosts/local-host.js';
import { type Dashboard, type DashboardOptions, startDashboard } from '../../serve/app.js';
import { action, parsePositive } from '../action.js';
import { noteToStderr, readLocation, type StoreFlags, withStoreOptions } from './store-options.js';

export function registerServe(program: Command): void {
  withStoreOptions(
    program
      .command('serve')
      .description(
        'A local web dashboard over the results store: runs, comparisons, history, Pareto, live sweeps.',
      )
      .option('--host <host>', 'address to listen on (loopback unless you mean to share it)', '127.0.0.1')
      .option('--port <port>', 'port (0: any free port)', '8321'),
  ).action(
    action(async (flags: StoreFlags & { host: string; port: string }) => {
      const port = parsePositive('--port', flags.port, { integer: true, allowZero: true });
      const d = await listenOrSayWhy({
        location: readLocation(flags),
        host: flags.host,
        port,
        note: noteToStderr,
      });
      process.stdout.write(`benchgate dashboard: ${d.url}\n`);
      if (flags.host !== '127.0.0.1' && flags.host !== 'localhost' && flags.host !== '::1')
        process.stderr.write(
          `benchgate: note: listening on ${flags.host}; anyone who can reach it sees your runs.\n`,
        );
      await new Promise<void>((resolve) => {
        const stop = () => void d.close().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      return 0;
    }),
  );
}

/** Starts the dashboard; a port already taken is a usage error naming who holds it, where that can be read. */
async function listenOrSayWhy(opts: DashboardOptions & { port: number; host: string }): Promise<Dashboard> {
  try {
    return await startDashboard(opts);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    throw new BenchgateError(
      'BG_E_USAGE',
      `--port ${opts.port}: ${opts.host}:${opts.port} is already in use${await holderText(opts.port)}; choose another port (--port 0 takes any free one).`,
    );
  }
}

async function holderText(port: number): Promise<string> {
  const host = new LocalHost();
  const pids = await host.listeningPids(port).catch(() => [] as number[]);
  if (pids.length === 0) return '';
  const info = await host.processInfo(pids[0]).catch(() => null);
  const cmd = info?.argv.join(' ').slice(0, 120);
  return ` by PID ${pids[0]}${cmd ? ` (${cmd})` : ''}`;
}
