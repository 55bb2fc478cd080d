import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRefusal, judgeFlags, readHelp, readRejections } from './help-flags.js';

// The format corpus of tool interfaces: help texts and refusals as argparse (3.8–3.13), click (8.1, 8.4),
// typer, commander, yargs, Go flag, cobra, clap (2–4) and getopts scripts print them (real runs of the
// libraries where they are installed here, else written after their formats), with the facts to extract.
const help = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', 'help', name), 'utf8');
const TEN_MB = '  --flag-like-text FLAG   words words words\n'.repeat((10 * 1024 * 1024) / 44);
const BINARY = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 131 + 7) % 256)).toString('latin1');

/** The same parser's flags, whichever Python printed its help (3.11 `-n N, --num-prompts N`, 3.13 `-n, --num-prompts N`). */
const BENCH_SERVING_FLAGS = [
  '--backend',
  '--base-url',
  '--help',
  '--max-concurrency',
  '--model',
  '--no-stream',
  '--num-prompts',
  '--request-rate',
  '--result-dir',
  '--save-result',
  '--stream',
  '-h',
  '-n',
];

describe('readHelp', () => {
  const cases: { file: string; style: string; flags: string[]; not?: string[] }[] = [
    {
      file: 'argparse-py312-groups.txt',
      style: 'argparse',
      flags: [
        '--backend',
        '--base-url',
        '--dataset-name',
        '--help',
        '--max-concurrency',
        '--no-stream',
        '--num-prompts',
        '--request-rate',
        '--seed',
        '--stream',
        '-h',
        '-n',
      ],
      not: ['--num-requests', '--tokenizer'],
    },
    {
      file: 'argparse-py38-optional-arguments.txt',
      style: 'argparse',
      flags: ['--help', '--output-dir', '--warmup', '-h'],
    },
    {
      file: 'argparse-engine-style.txt',
      style: 'argparse',
      flags: [
        '--gpu-memory-utilization',
        '--help',
        '--max-model-len',
        '--max-num-seqs',
        '--speculative-config',
        '--speculative_config',
        '--tensor-parallel-size',
        '-h',
        '-tp',
      ],
    },
    {
      file: 'click-options.txt',
      style: 'click',
      flags: ['--concurrency', '--help', '--mode', '--no-stream', '--rate', '--stream', '-c'],
      not: ['--dry-run'],
    },
    {
      file: 'commander-options.txt',
      style: 'commander',
      flags: [
        '--concurrency',
        '--help',
        '--mode',
        '--no-stream',
        '--num-requests',
        '--stream',
        '--version',
        '-V',
        '-c',
        '-h',
      ],
    },
    {
      file: 'yargs-options.txt',
      style: 'yargs',
      flags: ['--dry-run', '--help', '--rate', '--version', '-r'],
    },
    {
      file: 'argparse-py311-help.txt',
      style: 'argparse',
      flags: BENCH_SERVING_FLAGS,
      not: ['--base'],
    },
    {
      // Python 3.13 prints the metavar once: `-n, --num-prompts NUM_PROMPTS`
      file: 'argparse-py313-help.txt',
      style: 'argparse',
      flags: BENCH_SERVING_FLAGS,
    },
    {
      file: 'click-84-help.txt',
      style: 'click',
      flags: [
        '--base-url',
        '--concurrency',
        '--help',
        '--mode',
        '--no-stream',
        '--num-requests',
        '--stream',
        '-c',
      ],
    },
    {
      file: 'typer-rich-help.txt',
      style: 'typer',
      flags: [
        '--base-url',
        '--concurrency',
        '--help',
        '--install-completion',
        '--no-stream',
        '--num-prompts',
        '--show-completion',
        '--stream',
        '-c',
      ],
    },
    {
      file: 'go-flag-help.txt',
      style: 'go-flag',
      flags: ['-base-url', '-c', '-duration', '-model', '-n', '-stream', '-v'],
    },
    {
      file: 'cobra-help.txt',
      style: 'cobra',
      flags: [
        '--api-base',
        '--concurrency',
        '--help',
        '--log-level',
        '--max-requests',
        '--model',
        '--stream',
        '-c',
        '-h',
      ],
    },
    {
      file: 'clap4-help.txt',
      style: 'clap',
      flags: [
        '--base-url',
        '--concurrency',
        '--help',
        '--num-requests',
        '--stream',
        '--version',
        '-V',
        '-c',
        '-h',
        '-n',
        '-u',
      ],
    },
    {
      file: 'clap2-help.txt',
      style: 'clap',
      flags: ['--base-url', '--concurrency', '--help', '--stream', '--version', '-V', '-c', '-h', '-u'],
    },
    { file: 'getopts-options-section.txt', style: 'unknown', flags: ['-c', '-h', '-m', '-n'] },
  ];
  it.each(cases)('reads the option lines of $file', ({ file, style, flags, not }) => {
    const r = readHelp(help(file));
    if (r.kind !== 'value') throw new Error(JSON.stringify(r));
    expect([...r.value.flags].sort()).toEqual([...flags].sort());
    expect(r.value.style).toBe(style);
    for (const f of not ?? []) expect(r.value.flags.has(f)).toBe(false);
  });

  it.each([
    ['a click refusal (exit 2)', help('click-no-such-option.txt'), 2, /no option lines/],
    ['empty output (exit 1)', '', 1, /empty \(exit status 1\)/],
    ['binary garbage', BINARY, 0, /binary/],
    ['10 MB of text', TEN_MB, 0, /characters, far more than expected/],
    ['prose', 'this program has no help\n', 0, /^no option lines in an options section$/],
    ["a getopts script's usage line only", help('getopts-usage-only.txt'), 0, /^no option lines/],
    ["clap's refusal (exit 2)", help('clap4-unexpected-argument.txt'), 2, /no option lines.*exit status 2/],
  ] as [string, string, number, RegExp][])(
    'says %s is unreadable, with an excerpt',
    (_n, text, code, why) => {
      const r = readHelp(text, code);
      expect(r).toMatchObject({ kind: 'unreadable', reason: expect.stringMatching(why) });
      if (r.kind === 'unreadable') expect(r.excerpt.length).toBeLessThan(400);
    },
  );
});

it('reads a help text just under the size limit line by line (no backtracking blow-up)', () => {
  const big = `options:\n${'  --opt-x X    a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a\n'.repeat(20_000)}`;
  expect(big.length).toBeGreaterThan(1_500_000);
  const r = readHelp(big);
  expect(r.kind === 'value' && [...r.value.flags]).toEqual(['--opt-x']);
  expect(readRejections(`${'-'.repeat(1999)}\n`.repeat(900))).toEqual([]);
});

describe('readRejections', () => {
  const cases: [string, string[]][] = [
    ['argparse-rejected-after-echo.txt', ['--served-model-name', '--tokenizer']],
    ['argparse-invalid-choice.txt', ['--backend']],
    ['argparse-invalid-int.txt', ['--num-prompts']],
    ['argparse-ambiguous.txt', ['--max']],
    ['click-no-such-option.txt', ['--rates']],
    ['click-82-no-such-option.txt', ['--rates']],
    ['click-invalid-value.txt', ['--concurrency']],
    ['commander-unknown-option.txt', ['--rate']],
    ['commander-invalid-argument.txt', ['--mode']],
    ['yargs-unknown.txt', ['--served-model-name', '--tokenizer']],
    ['argparse-py312-groups.txt', []],
    ['click-options.txt', []],
  ];
  it.each(cases)('reads the refused flags of %s', (file, flags) => {
    const rs = readRejections(help(file));
    expect(rs.flatMap((r) => r.flags)).toEqual(flags);
    if (flags.length > 0) expect(rs[0].line).toMatch(/error|unknown/i);
  });

  const kinds: [string, string, string[]][] = [
    ['argparse-required-missing.txt', 'missing-required', ['--base-url']],
    ['argparse-rejected-after-echo.txt', 'unknown-flag', ['--served-model-name', '--tokenizer']],
    ['argparse-invalid-choice.txt', 'bad-value', ['--backend']],
    ['argparse-expected-one-argument.txt', 'bad-value', ['--base-url']],
    ['argparse-subcommand-invalid-choice.txt', 'bad-value', ['--backend']],
    ['argparse-module-prog-invalid-choice-py312.txt', 'bad-value', ['--dataset-name']],
    ['argparse-not-allowed-with.txt', 'conflict', ['--no-stream', '--stream']],
    ['argparse-ambiguous.txt', 'ambiguous', ['--max']],
    ['click-84-missing-option.txt', 'missing-required', ['--base-url']],
    ['click-84-no-such-option-quoted.txt', 'unknown-flag', ['--rates']],
    ['click-81-no-such-option.txt', 'unknown-flag', ['--rates']],
    ['click-84-requires-argument.txt', 'bad-value', ['--base-url']],
    ['typer-missing-option.txt', 'missing-required', ['--base-url']],
    ['typer-no-such-option.txt', 'unknown-flag', ['--rates']],
    ['typer-invalid-value.txt', 'bad-value', ['--concurrency']],
    ['go-flag-undefined.txt', 'unknown-flag', ['-served-model-name']],
    ['go-flag-invalid-value.txt', 'bad-value', ['-n']],
    ['cobra-unknown-flag.txt', 'unknown-flag', ['--served-model-name']],
    ['cobra-required-flag.txt', 'missing-required', ['--api-base', '--model']],
    ['clap4-unexpected-argument.txt', 'unknown-flag', ['--served-model-name']],
    ['clap4-missing-required.txt', 'missing-required', ['--base-url', '--model']],
    ['clap3-found-argument.txt', 'unknown-flag', ['--served-model-name']],
    ['getopts-illegal-option.txt', 'unknown-flag', ['-x']],
    ['getopts-requires-argument.txt', 'bad-value', ['-m']],
  ];
  it.each(kinds)('reads %s as one refusal of kind %s naming %j', (file, kind, flags) => {
    expect(readRejections(help(file)).map((r) => ({ kind: r.kind, flags: r.flags }))).toEqual([
      { kind, flags },
    ]);
  });

  it.each([
    [
      'argparse-invalid-choice.txt',
      "refused the value 'tgi' of --backend (choose from sglang, vllm, trt; bench_serving.py: error: argument --backend: invalid choice: 'tgi' (choose from 'sglang', 'vllm', 'trt'))",
    ],
    [
      'argparse-module-prog-invalid-choice-py312.txt',
      "refused the value 'randm' of --dataset-name (choose from sharegpt, random, generated-shared-prefix; python3 -m sglang.bench_serving: error: argument --dataset-name: invalid choice: 'randm' (choose from sharegpt, random, generated-shared-prefix))",
    ],
  ])('names the flag, the value and the choices of an invalid choice (%s)', (file, text) => {
    expect(readRejections(help(file)).map(describeRefusal)).toEqual([text]);
  });

  it('says a missing required argument is one the tool accepts but needs, and a rejection is a rejection', () => {
    const [required] = readRejections(help('argparse-required-missing.txt'));
    expect(describeRefusal(required)).toBe(
      'missing required arguments: --base-url (the tool accepts the flag but needs it; bench_serving.py: error: the following arguments are required: --base-url)',
    );
    const [rejected] = readRejections(help('clap4-unexpected-argument.txt'));
    expect(describeRefusal(rejected)).toBe(
      "rejected --served-model-name (error: unexpected argument '--served-model-name' found)",
    );
  });

  it('keeps the suggestion printed on the next line with the refusal', () => {
    expect(readRejections(help('commander-unknown-option.txt'))[0].line).toBe(
      "error: unknown option '--rate' (Did you mean --mode?)",
    );
    expect(readRejections(help('click-no-such-option.txt'))[0].line).toBe(
      'Error: No such option: --rates Did you mean --rate?',
    );
  });

  it('finds nothing in garbage and 10 MB of text, without hanging', () => {
    expect(readRejections(BINARY)).toEqual([]);
    expect(readRejections(TEN_MB)).toEqual([]);
    expect(readRejections(`${'error: unrecognized arguments: '.repeat(5000)}\n`)).toEqual([]);
  });
});

describe('judgeFlags', () => {
  const engine = readHelp(help('argparse-engine-style.txt'));
  const click = readHelp(help('click-options.txt'));
  const go = readHelp(help('go-flag-help.txt'));
  if (engine.kind !== 'value' || click.kind !== 'value' || go.kind !== 'value')
    throw new Error('fixtures must read');
  const cases: [string, typeof engine.value, string, object][] = [
    ['a declared flag', engine.value, '--max-model-len', { verdict: 'declared' }],
    ['a declared flag with =value', engine.value, '--max-model-len=4096', { verdict: 'declared' }],
    [
      'an argparse unique prefix',
      engine.value,
      '--tensor-parallel',
      { verdict: 'abbreviation', full: '--tensor-parallel-size' },
    ],
    [
      'a prefix with =value',
      engine.value,
      '--gpu-memory=0.9',
      { verdict: 'abbreviation', full: '--gpu-memory-utilization' },
    ],
    [
      'an ambiguous prefix',
      engine.value,
      '--max',
      { verdict: 'ambiguous', candidates: ['--max-model-len', '--max-num-seqs'] },
    ],
    ['an undeclared flag', engine.value, '--served-model-name', { verdict: 'missing' }],
    ['a prefix in click (no abbreviations)', click.value, '--conc', { verdict: 'missing' }],
    ["Go's flag package: --base-url for -base-url", go.value, '--base-url=http://x', { verdict: 'declared' }],
    ["Go's flag package: no prefixes", go.value, '--base', { verdict: 'missing' }],
  ];
  it.each(cases)('judges %s', (_n, reading, flag, verdict) => {
    expect(judgeFlags(reading, [flag])[0]).toMatchObject(verdict);
  });
});
