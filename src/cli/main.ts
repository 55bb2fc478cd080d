#!/usr/bin/env node
// The benchgate command line: commander wiring only. Each subcommand lives in commands/<name>.ts,
// parses its flags and calls the library; errors become exit codes in action.ts.

import { Command, CommanderError } from 'commander';
import { benchgateVersion } from '../core/version.js';
import { registerBench } from './commands/bench.js';
import { registerCalibrate } from './commands/calibrate.js';
import { registerCheck } from './commands/check.js';
import { registerCompare } from './commands/compare.js';
import { registerDemo } from './commands/demo.js';
import { registerGate } from './commands/gate.js';
import { registerHistory } from './commands/history.js';
import { registerK8s } from './commands/k8s.js';
import { registerMerge } from './commands/merge.js';
import { bareKillLeftoversFlag, registerRun } from './commands/run.js';
import { registerSchema } from './commands/schema.js';
import { registerServe } from './commands/serve.js';
import { registerSim } from './commands/sim.js';
import { registerStore } from './commands/store.js';

export function buildProgram(): Command {
  const program = new Command('benchgate')
    .description(
      'Prove an LLM inference server runs the intended configuration, then benchmark and compare it.',
    )
    .version(benchgateVersion())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerDemo(program);
  registerSim(program);
  registerBench(program);
  registerCheck(program);
  registerRun(program);
  registerCompare(program);
  registerMerge(program);
  registerK8s(program);
  registerSchema(program);
  registerCalibrate(program);
  registerStore(program);
  registerHistory(program);
  registerGate(program);
  registerServe(program);
  for (const c of program.commands) c.exitOverride();
  return program;
}

async function main(): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(bareKillLeftoversFlag(process.argv));
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
