// Starts a worker thread on a sibling module, from built JS (dist/) and from TypeScript source alike
// (the CLI under tests runs `node --import tsx src/cli/main.ts`, vitest runs the source): Node 20 does
// not carry the parent's --import hooks into a worker, so from source the worker first registers tsx's
// loader itself, then imports the .ts entry. From dist/ it starts on the .js file directly.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The URL of tsx's ESM API module (from its package.json exports), for registering it in a worker. */
function tsxApiUrl(from: string): string {
  const pkgPath = createRequire(from).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as {
    exports: Record<string, { import?: { default?: string } }>;
  };
  const rel = pkg.exports['./esm/api']?.import?.default;
  if (!rel) throw new Error(`${pkgPath} exports no ./esm/api module to load TypeScript workers with.`);
  return pathToFileURL(join(dirname(pkgPath), rel)).href;
}

/**
 * A worker running module `name` (without extension) next to `siblingUrl` (the caller's import.meta.url),
 * in the same flavour as the caller: `name.ts` when the caller is TypeScript source, `name.js` otherwise.
 */
export function spawnWorker(siblingUrl: string, name: string, workerData: unknown): Worker {
  if (!siblingUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, siblingUrl), { workerData });
  const entry = new URL(`./${name}.ts`, siblingUrl).href;
  const api = tsxApiUrl(siblingUrl);
  // an eval worker is a CommonJS script: import() the loader, register it, then the entry; a failure
  // is rethrown outside the promise so it reaches the parent as the worker's 'error' event
  const code =
    `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })` +
    '.catch((e) => process.nextTick(() => { throw e; }));';
  return new Worker(code, { eval: true, workerData });
}
