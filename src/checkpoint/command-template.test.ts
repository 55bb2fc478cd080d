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

  it('reads backslash escapes and backslash-newline continuations as a shell script would', () => {
    expect(splitCommand('python3 my\\ tool.py \\\n  --help')).toEqual(['python3', 'my tool.py', '--help']);
    expect(splitCommand(`echo "a \\"b\\" \\n" 'c\\d' e\\`)).toEqual(['echo', 'a "b" \\n', 'c\\d', 'e\\']);
  });

  it('rejects an unclosed quote with a plan error', () => {
    expect(() => splitCommand(`python3 "{path}`)).toThrow(/closing " in the command/);
  });
});
