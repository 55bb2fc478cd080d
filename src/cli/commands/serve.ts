// `benchgate serve`: flag parsing and wiring only; the dashboard is src/serve/app.ts. Runs until Ctrl-C.

import type { Command } from 'commander';
import { startDashboard } from '../../serve/app.js';
import { action, parsePositive } from '../action.js';
import { locationOf, noteToStderr, type StoreFlags, withStoreOptions } from './store-options.js';

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
      const d = await startDashboard({
        location: locationOf(flags),
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
