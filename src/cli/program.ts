// The benchgate program: which module registers each command. Only the module of the command named on
// the line is loaded (a `benchgate sim` child starts without the results store, the report renderer or
// the HTTP client); help and an unknown command load them all, and --version none.

import { Command } from 'commander';
import { benchgateVersion } from '../core/version.js';

type Register = (program: Command) => void;

/** The commands each module registers, and how to load it; in the order help lists them. */
const COMMAND_MODULES: { names: string[]; load: () => Promise<Register> }[] = [
  { names: ['demo'], load: async () => (await import('./commands/demo.js')).registerDemo },
  { names: ['sim'], load: async () => (await import('./commands/sim.js')).registerSim },
  { names: ['bench'], load: async () => (await import('./commands/bench.js')).registerBench },
  { names: ['check'], load: async () => (await import('./commands/check.js')).registerCheck },
  { names: ['run'], load: async () => (await import('./commands/run.js')).registerRun },
  {
    names: ['compare', 'report', 'import'],
    load: async () => (await import('./commands/compare.js')).registerCompare,
  },
  { names: ['merge'], load: async () => (await import('./commands/merge.js')).registerMerge },
  { names: ['k8s'], load: async () => (await import('./commands/k8s.js')).registerK8s },
  { names: ['schema'], load: async () => (await import('./commands/schema.js')).registerSchema },
  { names: ['calibrate'], load: async () => (await import('./commands/calibrate.js')).registerCalibrate },
  {
    names: ['index', 'runs', 'query'],
    load: async () => (await import('./commands/store.js')).registerStore,
  },
  { names: ['history', 'export'], load: async () => (await import('./commands/history.js')).registerHistory },
  { names: ['gate'], load: async () => (await import('./commands/gate.js')).registerGate },
  { names: ['serve'], load: async () => (await import('./commands/serve.js')).registerServe },
];

/** The command a command line names: its first word that is not an option (top-level options take no value). */
export function commandNamed(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((a) => !a.startsWith('-'));
}

/** Every command name the table knows, in help order. */
export const COMMAND_NAMES = COMMAND_MODULES.flatMap((m) => m.names);

/**
 * The program with the named command's module registered; every module when none is named or the name is
 * unknown (help, suggestions); none for a bare --version.
 */
export async function buildProgram(command?: string, versionOnly = false): Promise<Command> {
  const program = new Command('benchgate')
    .description(
      'Prove an LLM inference server runs the intended configuration, then benchmark and compare it.',
    )
    .version(benchgateVersion())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  if (versionOnly && command === undefined) return program;
  const named = COMMAND_MODULES.filter((m) => command !== undefined && m.names.includes(command));
  for (const m of named.length > 0 ? named : COMMAND_MODULES) (await m.load())(program);
  for (const c of program.commands) c.exitOverride();
  return program;
}
