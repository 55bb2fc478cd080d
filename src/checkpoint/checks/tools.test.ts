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

// echoes its own command line (as wrapper scripts do), then lets argparse judge it
const ECHOING_TOOL = `import argparse, sys
print("+ " + " ".join(sys.argv))
for a in sys.argv[1:]:
    print("    " + a + " \\\\")
p = argparse.ArgumentParser()
p.add_argument("--backend", choices=["sglang", "vllm"])
p.add_argument("--num-prompts", type=int, default=10)
p.add_argument("--num-warmups", type=int, default=1)
p.add_argument("--tensor-parallel-size", type=int, default=1)
p.parse_args()
print("ok")
`;

const CLICK_TOOL = `import click
@click.command()
@click.option("-c", "--concurrency", type=int, default=1, help="requests in flight")
@click.option("--stream/--no-stream", default=True)
def main(concurrency, stream):
    print("ok")
main()
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

  it('fails as unknown, never as missing or accepted, a flag a cut help may list below the cut', async () => {
    const cut = join(dir, 'cut-help.txt');
    writeFileSync(
      cut,
      'usage: loadbench.py [-h] [--backend BACKEND] [--num-prompts NUM_PROMPTS]\n             [--max-conc',
    );
    const findings = await checkTools(
      ctxFor({ tools: [{ path: cut, help: 'cat {path}', accepts: ['--backend', '--max-concurrency'] }] }),
    );
    const flags = findings.find((f) => f.id === 'tool.0.flags');
    expect(flags?.status).toBe('fail');
    expect(flags?.found).toBe(
      'unknown whether the tool accepts --max-concurrency: the text ends inside the usage block',
    );
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

  const echo = join(dir, 'echoing.py');
  writeFileSync(echo, ECHOING_TOOL);
  const clickTool = join(dir, 'click_tool.py');
  writeFileSync(clickTool, CLICK_TOOL);

  it('fails a help command that argparse refuses (exit 2) naming the flag, not reading the echoed command line', async () => {
    const [, flags] = await checkTools(
      ctxFor({
        tools: [
          { path: echo, help: 'python3 {path} --served-model-name llama', accepts: ['--served-model-name'] },
        ],
      }),
    );
    expect(flags).toMatchObject({ id: 'tool.0.flags', status: 'fail', required: true });
    expect(flags.found).toBe(
      'the tool refused the help command (exit status 2): rejected --served-model-name (echoing.py: error: unrecognized arguments: --served-model-name llama)',
    );
  });

  it('accepts an argparse unique prefix and says so, fails an ambiguous one; the real tool agrees', async () => {
    const findings = await checkTools(
      ctxFor({
        tools: [
          {
            path: echo,
            help: 'python3 {path} --help',
            accepts: ['--tensor-parallel', '--num-p'],
            dry_run: 'python3 {path} --tensor-parallel 2 --num-p=3',
          },
          {
            path: echo,
            help: 'python3 {path} --help',
            accepts: ['--num'],
            dry_run: 'python3 {path} --num 3',
          },
        ],
      }),
    );
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['tool.0.flags'].status).toBe('pass');
    expect(by['tool.0.flags'].found).toBe(
      '6 options declared, all requested flags accepted; accepted --tensor-parallel as an abbreviation of --tensor-parallel-size (argparse prefix matching), --num-p as an abbreviation of --num-prompts (argparse prefix matching)',
    );
    expect(by['tool.0.dry_run'].status).toBe('pass');
    expect(by['tool.1.flags']).toMatchObject({
      status: 'fail',
      found: 'not accepted: --num (ambiguous: --num-prompts, --num-warmups)',
    });
    expect(by['tool.1.dry_run'].status).toBe('fail');
    expect(by['tool.1.dry_run'].found).toMatch(
      /^exit status 2: ambiguous --num \(.*error: ambiguous option: --num could match/,
    );
  });

  it('reads a real click tool, and names the option click refuses in a dry run', async () => {
    const findings = await checkTools(
      ctxFor({
        tools: [
          {
            path: clickTool,
            help: 'python3 {path} --help',
            accepts: ['--concurrency', '--no-stream', '--conc'],
            dry_run: 'python3 {path} --rate 3',
          },
        ],
      }),
    );
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    expect(by['tool.0.flags']).toMatchObject({ status: 'fail', found: 'not accepted: --conc' });
    expect(by['tool.0.dry_run'].found).toBe(
      "exit status 2: rejected --rate (Error: No such option '--rate'.)",
    );
  });

  it('names the option commander refuses in a dry run', async () => {
    const [, dry] = await checkTools(ctxFor({ tools: [{ path: js, dry_run: 'node {path} --bogus' }] }));
    expect(dry).toMatchObject({ id: 'tool.0.dry_run', status: 'fail' });
    expect(dry.found).toBe("exit status 1: rejected --bogus (error: unknown option '--bogus')");
  });

  const REQUIRED_TOOL = `import argparse
p = argparse.ArgumentParser(prog="bench_serving.py")
p.add_argument("--base-url", required=True)
p.add_argument("--model")
p.parse_args()
print("ok")
`;
  const required = join(dir, 'bench_serving.py');
  writeFileSync(required, REQUIRED_TOOL);

  const subcommand = join(dir, 'bench_subcommand.py');
  writeFileSync(
    subcommand,
    `import argparse\np = argparse.ArgumentParser(prog="vllm bench serve")\np.add_argument("--backend", choices=["sglang", "vllm"])\np.parse_args()\nprint("ok")\n`,
  );

  it("names the flag, the value and the choices of argparse's invalid choice under a subcommand's name", async () => {
    const findings = await checkTools(
      ctxFor({ tools: [{ path: subcommand, dry_run: 'python3 {path} --backend tgi' }] }),
    );
    const dry = findings.find((f) => f.id === 'tool.0.dry_run');
    expect(dry?.found).toMatch(
      /^exit status 2: refused the value 'tgi' of --backend \(choose from sglang, vllm; vllm bench serve: error: argument --backend: invalid choice: 'tgi'/,
    );
  });

  it('reports argparse\'s "arguments are required" as a missing required argument, never as a rejected flag', async () => {
    const findings = await checkTools(
      ctxFor({
        tools: [
          {
            path: required,
            help: 'python3 {path} --model m',
            accepts: ['--model'],
            dry_run: 'python3 {path} --model m',
          },
        ],
      }),
    );
    const by = Object.fromEntries(findings.map((f) => [f.id, f]));
    const line = 'bench_serving.py: error: the following arguments are required: --base-url';
    expect(by['tool.0.dry_run'].found).toBe(
      `exit status 2: missing required arguments: --base-url (the tool accepts the flag but needs it; ${line})`,
    );
    expect(by['tool.0.flags']).toMatchObject({ status: 'fail' });
    expect(by['tool.0.flags'].found).toContain('missing required arguments: --base-url');
    for (const f of findings) expect(f.found ?? '').not.toContain('rejected --base-url');
  });

  const HELP = join(import.meta.dirname, '..', 'fixtures', 'help');
  it.each([
    [
      "Go's flag package (two dashes for one)",
      'go-flag-help.txt',
      ['--base-url', '-c', '-n'],
      'pass',
      '7 options declared, all requested flags accepted',
    ],
    [
      'typer (rich boxes, a required option, --stream/--no-stream)',
      'typer-rich-help.txt',
      ['--base-url', '--no-stream', '-c'],
      'pass',
      '9 options declared, all requested flags accepted',
    ],
    [
      'clap 4',
      'clap4-help.txt',
      ['--base-url', '--num-requests', '--served-model-name'],
      'fail',
      'not accepted: --served-model-name',
    ],
    ['cobra', 'cobra-help.txt', ['--api-base', '--max-req'], 'fail', 'not accepted: --max-req'],
    [
      "a getopts script's usage line only: unknown, never accepted",
      'getopts-usage-only.txt',
      ['-m'],
      'fail',
      expect.stringMatching(
        /^unknown whether the tool accepts the flags: the help is unreadable: no option lines/,
      ),
    ],
  ])('judges the flags of %s', async (_n, file, accepts, status, found) => {
    const [, flags] = await checkTools(
      ctxFor({ tools: [{ path: join(HELP, file), help: 'cat {path}', accepts }] }),
    );
    expect(flags).toMatchObject({ id: 'tool.0.flags', status, found });
  });
});
