import { describe, expect, it } from 'vitest';
import { commandArgv, splitCommand } from './command-template.js';

describe('command templates', () => {
  it('splits on whitespace with quotes grouping words, and puts {path} in as one argument', () => {
    expect(splitCommand(`python3 -c 'print(1)' "a b" ''`)).toEqual(['python3', '-c', 'print(1)', 'a b', '']);
    expect(commandArgv('python3 {path} --help', '/tmp/my tool.py; rm -rf /')).toEqual([
      'python3',
      '/tmp/my tool.py; rm -rf /',
      '--help',
    ]);
    expect(commandArgv('node --script={path}', '/x.js')).toEqual(['node', '--script=/x.js']);
  });

  it('rejects an unclosed quote with a plan error', () => {
    expect(() => splitCommand(`python3 "{path}`)).toThrow(/closing " in the command/);
  });
});
