// Starting helper processes for the bench scripts: a node child whose stdout announces readiness
// (e.g. "port 1234"), and the path of a sibling script whether we run from dist/ (.js) or via tsx (.ts).

import { type ChildProcess, spawn } from 'node:child_process';
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
