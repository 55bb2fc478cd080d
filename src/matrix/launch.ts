// Starts one config's server through the ProcessHost, its output captured into the config's directory
// (server-output.log) and streamed into a LogTail for crash detection and progress lines, every line
// scrubbed of the plan's secrets and of credential shapes first (hosts/output-sink.ts).

import { join } from 'node:path';
import { BenchgateError, isBenchgateError } from '../core/errors.js';
import type { ProcessHost, SpawnedProcess } from '../hosts/host.js';
import type { ResolvedConfig } from './config-plan.js';
import { LAUNCH_TOKEN_ENV, newLaunchToken } from './launch-proof.js';
import { LogTail } from './log-tail.js';

export const SERVER_OUTPUT_FILE = 'server-output.log';

export interface LaunchedServer {
  proc: SpawnedProcess;
  log: LogTail;
  outputFile: string;
  /** The process's start time (ISO, from /proc), recorded so a later --kill-leftovers can prove it is ours. */
  startTime: string | null;
  /** The keyed digest of the launch token in its environment (launch-proof.ts), recorded with the PID. */
  proof: string;
}

/**
 * Secret values of the plan the server may print besides those of its env and flags (which the host
 * finds itself): the target's header values and the key of target.api_key_env (from this environment).
 */
function planSecrets(config: ResolvedConfig): string[] {
  const target = config.plan.target ?? {};
  const varName = target.api_key_env;
  const key = varName ? (config.env[varName] ?? process.env[varName]) : undefined;
  return [...Object.values(target.headers ?? {}), ...(key ? [key] : [])];
}

export async function launchServer(
  host: ProcessHost,
  config: ResolvedConfig,
  configDir: string,
): Promise<LaunchedServer> {
  const log = new LogTail();
  const outputFile = join(configDir, SERVER_OUTPUT_FILE);
  // A missing cwd makes spawn fail as "spawn <command> ENOENT", which blames the command: name the directory.
  if (config.cwd !== undefined) {
    const dir = await host.exec(['test', '-d', config.cwd], { timeoutMs: 15_000 }).catch(() => null);
    if (dir && dir.code !== 0) {
      throw new BenchgateError(
        'BG_E_LAUNCH',
        `config "${config.name}": the launch working directory ${config.cwd} (launch.cwd) does not exist on ${host.description}, or is not a directory.`,
      );
    }
  }
  const { token, proof } = newLaunchToken();
  try {
    const proc = await host.spawn(config.argv, {
      env: { ...config.env, [LAUNCH_TOKEN_ENV]: token },
      cwd: config.cwd,
      outputFile,
      onLine: log.push,
      secrets: planSecrets(config),
    });
    const startTime = (await host.processInfo(proc.pid).catch(() => null))?.startTime ?? null;
    return { proc, log, outputFile, startTime, proof };
  } catch (e) {
    const why = isBenchgateError(e) ? e.message : (e as Error).message;
    throw new BenchgateError(
      'BG_E_LAUNCH',
      `config "${config.name}": could not launch "${config.argv[0]}" on ${host.description} (${why.replace(/\.$/, '')}).`,
      { cause: e },
    );
  }
}
