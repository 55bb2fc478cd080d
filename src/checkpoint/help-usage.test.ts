// Help and refusal output as users paste it: argparse's usage block as the only flag list (complete, or
// cut by the paste), an option section cut after a line that lost its description, llama.cpp's and
// llama-bench's own refusals, and argparse naming a required positional argument.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { judgeFlags, readHelp, readRejections } from './help-flags.js';

const help = (name: string) => readFileSync(new URL(`./fixtures/help/${name}`, import.meta.url), 'utf8');

function reading(name: string) {
  const r = readHelp(help(name), 2);
  if (r.kind !== 'value') throw new Error(`${name} must read`);
  return r.value;
}

describe('an argparse usage block as the flag list', () => {
  it('reads a complete block (the refusal follows it): a flag it does not list is missing', () => {
    const r = reading('argparse-usage-complete-required.txt');
    expect(r).toMatchObject({ source: 'usage', cut: null, style: 'argparse' });
    expect([...r.flags].sort()).toEqual(['--base-url', '--max-tokens', '--rounds', '-h']);
    expect(judgeFlags(r, ['--rounds', '--max-tok', '--requests']).map((v) => v.verdict)).toEqual([
      'declared',
      'abbreviation',
      'missing',
    ]);
  });

  it('reads the flags of a block the paste cut, and leaves every other flag (and any prefix) unknown', () => {
    const r = reading('argparse-usage-cut.txt');
    expect(r.cut).toBe('the text ends inside the usage block');
    expect(judgeFlags(r, ['--max-concurrency', '--random-output-len', '--random-input'])).toEqual([
      { flag: '--max-concurrency', verdict: 'declared' },
      { flag: '--random-output-len', verdict: 'unknown', reason: 'the text ends inside the usage block' },
      { flag: '--random-input', verdict: 'unknown', reason: 'the text ends inside the usage block' },
    ]);
  });

  it('reads the usage a refusal prints after an echoed command line, never the echo', () => {
    const r = reading('argparse-rejected-after-echo.txt');
    expect([...r.flags].sort()).toEqual(['--backend', '--base-url', '--num-prompts', '-h']);
    expect(judgeFlags(r, ['--served-model-name'])[0].verdict).toBe('missing');
  });
});

describe('an option section cut by the paste', () => {
  it('is cut when it ends on an option line without the description every other one has', () => {
    const r = reading('options-section-cut.txt');
    expect(r.cut).toContain('--batch-size N');
    expect(judgeFlags(r, ['--ctx-size', '--parallel']).map((v) => v.verdict)).toEqual([
      'declared',
      'unknown',
    ]);
  });

  it('is whole when its last option has a description below it or none has one', () => {
    const whole = `${help('options-section-cut.txt')}                            tokens per batch\n`;
    expect(readHelp(whole).kind === 'value' && readHelp(whole)).toMatchObject({ value: { cut: null } });
  });
});

describe("llama.cpp's refusals", () => {
  it.each([
    ['llamacpp-invalid-argument.txt', [['unknown-flag', ['--spec-foo']]]],
    ['llamacpp-unknown-argument-2024.txt', [['unknown-flag', ['-hf']]]],
    // an unknown flag, then a value refused ("error: stoi" before it)
    [
      'llama-bench-invalid-parameter.txt',
      [
        ['unknown-flag', ['-c']],
        ['bad-value', ['-n']],
      ],
    ],
    ['llamacpp-error-while-handling.txt', [['bad-value', ['--ctx-size']]]],
    ['argparse-required-positional.txt', [['missing-required', ['model_tag']]]],
  ] as const)('reads %s', (file, expected) => {
    expect(readRejections(help(file)).map((r) => [r.kind, r.flags])).toEqual(expected);
  });
});
