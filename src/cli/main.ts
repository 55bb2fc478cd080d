#!/usr/bin/env node
// The benchgate command line: parses the line with the program of program.ts (only the named command's
// module loaded); errors become exit codes in action.ts, parse errors exit 2.

import { CommanderError } from 'commander';
import { bareKillLeftoversFlag } from './kill-leftovers-flag.js';
import { buildProgram, commandNamed } from './program.js';

async function main(): Promise<void> {
  const argv = process.argv;
  const versionOnly = argv.includes('--version') || argv.includes('-V');
  const program = await buildProgram(commandNamed(argv), versionOnly);
  try {
    await program.parseAsync(bareKillLeftoversFlag(argv));
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version exit 0; every parse error is a usage error (2)
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    throw e;
  }
}

await main();
