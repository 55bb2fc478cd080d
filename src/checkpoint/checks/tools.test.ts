import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ctxFor } from '../test-support.js';
import { checkTools } from './tools.js';

const ARGPARSE_TOOL = `import argparse
p = argparse.ArgumentParser(description="parallel benchmark")
p.add_argument("--concurrency", type=int, default=1)
p.add_argument("--num-prompts", type=int, default=10, help="how many prompts (not --num-requests)")
p.add_argument("--backend", choices=["sglang", "vllm"])
args = p.parse_args()
print("ok")
`;

const COMMANDER_TOOL = (
  commanderPath: string,
) => `const { Command } = require(${JSON.stringify(commanderPath)});
const program = new Command('loadgen');
program.option('-c, --concurrency <n>', 'requests in flight').option('--no-stream', 'disable streaming').option('--num-requests <n>', 'total requests');
program.parse();
console.log('dry run ok');
`;

describe('tool checks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bg-tools-'));
  const py = join(dir, 'benchmark parallel.py');
  writeFileSync(py, ARGPARSE_TOOL);
  const js = join(dir, 'loadgen.cjs');
  writeFileSync(js, COMMANDER_TOOL(createRequire(import.meta.url).resolve('commander')));

  it('fails naming each flag a real argparse script rejects, and passes the ones it accepts', async () => {
    const findings = await checkTools(
      ctxFor({
        tools: [
          {
            path: py,
            help: 'python3 {path} --help',
            accepts: ['--concurrency', '--num-requests', '--num-prompts', '--rate'],
          },
        ],
      }),
    );
    const flags = findings.find((f) => f.id === 'tool.0.flags');
    expect(findings.find((f) => f.id === 'tool.0.exists')?.status).toBe('pass');
    expect(flags?.status).toBe('fail');
    expect(flags?.found).toBe('not accepted: --num-requests, --rate');
    expect(flags?.evidence[0].where).toBe(`python3 ${py} --help`);
  });

  it('reads a real commander CLI, checks its sha256 and runs its dry run', async () => {
    const { readFileSync } = await import('node:fs');
    const sha = createHash('sha256').update(readFileSync(js)).digest('hex');
    const findings = await checkTools(
      ctxFor({
        tools: [
          {
            path: js,
            sha256: sha,
            help: `node {path} --help`,
            accepts: ['-c', '--concurrency', '--num-requests', '--no-stream'],
            dry_run: 'node {path} --num-requests 1',
          },
        ],
      }),
    );
    expect(findings.map((f) => [f.id, f.status])).toEqual([
      ['tool.0.exists', 'pass'],
      ['tool.0.sha256', 'pass'],
      ['tool.0.flags', 'pass'],
      ['tool.0.dry_run', 'pass'],
    ]);
  });

  it('fails a wrong checksum, a missing tool and a dry run that exits non-zero', async () => {
    const findings = await checkTools(
      ctxFor({
        tools: [
          { path: js, sha256: '0'.repeat(64), dry_run: 'node {path} --bogus' },
          { path: join(dir, 'absent.py'), help: 'python3 {path} --help', accepts: ['--x'] },
        ],
      }),
    );
    const status = Object.fromEntries(findings.map((f) => [f.id, f.status]));
    expect(status).toEqual({
      'tool.0.exists': 'pass',
      'tool.0.sha256': 'fail',
      'tool.0.dry_run': 'fail',
      'tool.1.exists': 'fail',
    });
  });
});
