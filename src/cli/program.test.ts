import { describe, expect, it } from 'vitest';
import { buildProgram, COMMAND_NAMES, commandNamed } from './program.js';
import { runCli } from './test-support/run-cli.js';

// The program loads only the module of the command on the line; its table of names must be the
// commands the modules really register, or a command would be missing from a one-command program.

describe('the benchgate program', () => {
  it('knows every command its modules register, in help order', async () => {
    const all = await buildProgram();
    expect(all.commands.map((c) => c.name())).toEqual(COMMAND_NAMES);
  });

  it('registers only the named command, and every command for a name it does not know', async () => {
    const sim = await buildProgram('sim');
    expect(sim.commands.map((c) => c.name())).toEqual(['sim']);
    const store = await buildProgram('runs');
    expect(store.commands.map((c) => c.name())).toEqual(['index', 'runs', 'query']);
    expect((await buildProgram('nonsense')).commands).toHaveLength(COMMAND_NAMES.length);
    expect(commandNamed(['node', 'main.js', '--help'])).toBeUndefined();
    expect(commandNamed(['node', 'main.js', 'bench', '--url', 'x'])).toBe('bench');
  });

  it('lists every command in --help, prints the version, and suggests the command meant', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const name of COMMAND_NAMES) expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const typo = await runCli(['bnech']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean bench?)');
  });

  it('describes every command as a sentence: a capital first, a full stop last', async () => {
    const all = await buildProgram();
    for (const c of all.commands) {
      const d = c.description();
      expect(d, c.name()).toMatch(/^[A-Z`]/);
      expect(d, c.name()).toMatch(/\.$/);
    }
  });
});
