// The real benchgate CLI (this checkout, cli-argv.ts) in its own process, for tests that judge exit codes and output.

import { type ChildProcess, spawn } from 'node:child_process';
import { cliNodeArgs } from './cli-argv.js';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `benchgate ...args` (NO_COLOR set, stdout and stderr piped and collected). */
export function startCli(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [...cliNodeArgs(), ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c) => {
    stdout += c;
  });
  child.stderr?.on('data', (c) => {
    stderr += c;
  });
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}
