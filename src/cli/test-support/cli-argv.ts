// Test support: how a test starts this checkout's CLI as a child process. Under the suite, the build the
// global setup made for this run (BG_TEST_CLI, src/test-support/cli-build.ts), which starts about twice as
// fast; otherwise the TypeScript source through tsx.

import { fileURLToPath } from 'node:url';
import { TEST_CLI_VAR } from '../../test-support/cli-build.js';

export const MAIN_TS = fileURLToPath(new URL('../main.ts', import.meta.url));

/** Node's arguments that run the CLI: `node ...cliNodeArgs() <command> ...`. */
export function cliNodeArgs(): string[] {
  const built = process.env[TEST_CLI_VAR];
  return built ? [built] : ['--import', import.meta.resolve('tsx'), MAIN_TS];
}
