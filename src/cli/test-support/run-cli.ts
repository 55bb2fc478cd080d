// Test helper: the real CLI (this checkout, cli-argv.ts) in its own process (NO_COLOR), with its exit code and output.

import { spawn } from 'node:child_process';
import { cliNodeArgs } from './cli-argv.js';

export function runCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliNodeArgs(), ...args], {
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
