import { describe, expect, it } from 'vitest';
import { missingFlags, parseHelpFlags } from './help-flags.js';

const ARGPARSE = `usage: benchmark_parallel.py [-h] [--concurrency CONCURRENCY]
                             [--num-prompts NUM_PROMPTS] [--backend {sglang,vllm}]

Run a parallel benchmark.

options:
  -h, --help            show this help message and exit
  --concurrency CONCURRENCY
                        number of parallel requests (see also --num-prompts)
  --num-prompts NUM_PROMPTS
  --backend {sglang,vllm}
`;

const COMMANDER = `Usage: bench [options]

Options:
  -c, --concurrency <n>  requests in flight
  --[no-]stream          stream responses
  --num-requests=<n>     total requests
  -h, --help             display help for command
`;

const YARGS = `Options:
      --version       Show version number                              [boolean]
  -r, --rate          Requests per second                               [number]
      --dry-run       Print the plan only                              [boolean]
`;

describe('parseHelpFlags', () => {
  it('reads argparse usage and option lines, and not flags mentioned in prose', () => {
    const flags = parseHelpFlags(ARGPARSE);
    expect([...flags].sort()).toEqual(['--backend', '--concurrency', '--help', '--num-prompts', '-h']);
    expect(missingFlags(flags, ['--concurrency', '--num-requests'])).toEqual(['--num-requests']);
  });

  it('reads commander help including --[no-]x and --x=<v>', () => {
    const flags = parseHelpFlags(COMMANDER);
    expect(missingFlags(flags, ['-c', '--stream', '--no-stream', '--num-requests=10', '--rate'])).toEqual([
      '--rate',
    ]);
  });

  it('reads yargs help', () => {
    expect([...parseHelpFlags(YARGS)].sort()).toEqual(['--dry-run', '--rate', '--version', '-r']);
  });
});
