// Starts one config's server through the ProcessHost, its output captured into the config's directory
// (server-output.log) and streamed into a LogTail for crash detection and progress lines.

import { join } from 'node:path';
import { BenchgateError, isBenchgateError } from '../core/errors.js';
import type { ProcessHost, SpawnedProcess } from '../hosts/host.js';
import type { ResolvedConfig } from './config-plan.js';
import { LogTail } from './log-tail.js';

export const SERVER_OUTPUT_FILE = 'server-output.log';

export interface LaunchedServer {
  proc: SpawnedProcess;
  log: LogTail;
  outputFile: string;
}

export async function launchServer(
  host: ProcessHost,
  config: ResolvedConfig,
  configDir: string,
): Promise<LaunchedServer> {
  const log = new LogTail();
  const outputFile = join(configDir, SERVER_OUTPUT_FILE);
  try {
    const proc = await host.spawn(config.argv, {
      env: config.env,
      cwd: config.cwd,
      outputFile,
      onLine: log.push,
    });
    return { proc, log, outputFile };
  } catch (e) {
    const why = isBenchgateError(e) ? e.message : (e as Error).message;
    throw new BenchgateError(
      'BG_E_LAUNCH',
      `config "${config.name}": could not launch "${config.argv[0]}" on ${host.description} (${why.replace(/\.$/, '')}).`,
      { cause: e },
    );
  }
}
