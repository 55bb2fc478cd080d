// Test support: the CLI the tests start as child processes, built once per run. Started through tsx, each
// CLI process would transform the TypeScript again and take about twice as long to start; the suite
// starts it hundreds of times. So the global setup transpiles this checkout's sources (no type check:
// `npm run typecheck` does that) into the run's temporary folder, laid out as dist/ is beside
// package.json and node_modules, and points BG_TEST_CLI at its main.js.

import { copyFileSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** Environment variable holding the built CLI's main.js for the run (set by the global setup). */
export const TEST_CLI_VAR = 'BG_TEST_CLI';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every source but the tests (test-support files come along: unused, and cheaper than telling apart). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Transpiles src/ into `<into>/dist` beside a copy of package.json and a link to node_modules; returns the CLI's main.js. */
export async function buildCliForTests(into: string): Promise<string> {
  mkdirSync(into, { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(into, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(into, 'node_modules'), 'dir');
  await build({
    entryPoints: sources(join(ROOT, 'src')),
    outdir: join(into, 'dist'),
    outbase: join(ROOT, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  return join(into, 'dist', 'cli', 'main.js');
}
