// Helper processes for the bench scripts: starting a node child whose stdout announces readiness (e.g.
// "port 1234"), the path of a sibling script whether we run from dist/ (.js) or via tsx (.ts), and the
// CPU time a process has used (so a server's CPU is shown apart from the client's).

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A sibling module of `fromUrl` (import.meta.url), with the caller's own extension (.js in dist/, .ts under tsx). */
export function siblingScript(fromUrl: string, name: string): string {
  const ext = fromUrl.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`${name}${ext}`, fromUrl));
}

export async function startChild(
  args: string[],
  ready: RegExp,
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  const child = spawn(process.execPath, [...execArgv, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    child.stdout?.on('data', (c) => {
      out += c;
      const m = out.match(ready);
      if (m) resolve(m);
    });
    child.on('exit', (code) => reject(new Error(`child exited (${code}) before it was ready: ${out}`)));
  });
  child.stdout?.resume();
  return { child, match };
}

/** CPU seconds (user + system) process `pid` has used (Linux /proc, 100 ticks/s), or null elsewhere. */
export function processCpuS(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
