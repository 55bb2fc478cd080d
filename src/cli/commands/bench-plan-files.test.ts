// `bench PLAN` validates every file the plan names, and the workload's load shape, at plan time: a bad
// file is a plan error (exit 2) at file:line:col of its key, found before the checkpoint asked the
// server anything and before a run directory exists (issue 33 item 5).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMiniOpenAi } from '../../client/test-support/mini-openai.js';
import type { ScriptedServer } from '../../client/test-support/scripted-server.js';
import { startCli } from '../test-support/cli-process.js';

let srv: ScriptedServer;
let dir: string;
beforeAll(async () => {
  srv = await startMiniOpenAi();
  dir = mkdtempSync(join(tmpdir(), 'bg-plan-files-'));
});
afterAll(async () => {
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Writes a plan whose workload lines are `workload` (YAML, indented by two) and whose load section starts
 * with `kind: loadKind` when given, targeting the test server.
 */
function writePlan(
  name: string,
  workload: string,
  o: { rest?: string; loadKind?: string } = {},
): { plan: string; out: string } {
  const out = join(dir, `${name}-out`);
  const plan = join(dir, `${name}.yaml`);
  const kind = o.loadKind ? `  kind: ${o.loadKind}\n` : '';
  writeFileSync(
    plan,
    `target:\n  url: ${srv.url}\n  engine: openai\nworkload:\n${workload}load:\n${kind}  levels: [1]\n  requests: 2\n${o.rest ?? ''}output: ${out}\n`,
  );
  return { plan, out };
}

/** Runs `bench PLAN`, expects a plan error (exit 2), no request to the server and no run directory. */
async function planError(plan: string, out: string, extra: string[] = []): Promise<string> {
  const before = srv.bodies.length;
  const r = await startCli(['bench', plan, ...extra]).done;
  expect(r.stderr).toContain('BG_E_PLAN_INVALID');
  expect(r.code).toBe(2);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(srv.bodies.length).toBe(before);
  expect(() => readdirSync(out)).toThrow(); // the output folder was never created
  return r.stderr;
}

describe('bench validates the files a plan names before anything runs', () => {
  it('a missing dataset, /dev/zero and a directory: each at its key with what is wrong', async () => {
    const { plan, out } = writePlan('three', '  dataset: missing.jsonl\n  tokenizer: /dev/zero\n', {
      rest: 'lossless:\n  reference: .\n',
    });
    const err = await planError(plan, out);
    expect(err).toMatch(/three\.yaml:5:12 workload\.dataset: ".*missing\.jsonl" does not exist/);
    expect(err).toMatch(
      /three\.yaml:6:14 workload\.tokenizer: "\/dev\/zero" is a device, expected a regular file/,
    );
    expect(err).toMatch(/three\.yaml:11:14 lossless\.reference: "\." is a directory, expected a file/);
  });

  it('a named pipe (FIFO) as dataset is refused without reading it (no hang)', async () => {
    const fifo = join(dir, 'prompts.fifo');
    execFileSync('mkfifo', [fifo]);
    const { plan, out } = writePlan('fifo', `  dataset: ${fifo}\n`);
    const err = await planError(plan, out);
    expect(err).toMatch(/fifo\.yaml:5:12 workload\.dataset: ".*prompts\.fifo" is a named pipe \(FIFO\)/);
  });

  it('a dataset over the size bound is refused by its size, not read', async () => {
    const huge = join(dir, 'huge.jsonl');
    writeFileSync(huge, '');
    truncateSync(huge, 600 * 1024 * 1024); // sparse: no disk used
    const { plan, out } = writePlan('huge', `  dataset: ${huge}\n`);
    const err = await planError(plan, out);
    expect(err).toMatch(
      /huge\.yaml:5:12 workload\.dataset: ".*huge\.jsonl" is 600\.0 MiB, over the 512\.0 MiB/,
    );
  });

  it('a dataset that does not parse names its own line', async () => {
    writeFileSync(join(dir, 'bad.jsonl'), '{"prompt": "one"}\n{"prompt": "two"\n');
    const { plan, out } = writePlan('unparsed', '  dataset: bad.jsonl\n');
    const err = await planError(plan, out);
    expect(err).toMatch(/unparsed\.yaml:5:12 workload\.dataset: .*bad\.jsonl:2 is not a JSON object line/);
  });

  it('a dataset named by --dataset is named by the flag', async () => {
    const { plan, out } = writePlan('flag', '  seed: 3\n');
    const err = await planError(plan, out, ['--dataset', join(dir, 'nowhere.json')]);
    expect(err).toMatch(/--dataset \(workload\.dataset\): ".*nowhere\.json" does not exist/);
  });

  it('a trace workload with concurrency levels is a plan error at load.kind', async () => {
    writeFileSync(join(dir, 'good.jsonl'), '{"timestamp": 0, "input_length": 8, "output_length": 4}\n');
    const { plan, out } = writePlan('trace-conc', '  kind: trace\n  trace:\n    path: good.jsonl\n', {
      loadKind: 'concurrency',
    });
    const err = await planError(plan, out);
    expect(err).toMatch(
      /trace-conc\.yaml:9:9 load\.kind: workload\.kind trace replays .*set load\.kind: rate/,
    );
  });

  it('a trace file with an unreadable line is a plan error naming the trace line', async () => {
    writeFileSync(
      join(dir, 'broken-trace.jsonl'),
      '{"timestamp": 0, "input_length": 8, "output_length": 4}\n{"timestamp": "soon"}\n',
    );
    const { plan, out } = writePlan('trace-bad', '  kind: trace\n  trace:\n    path: broken-trace.jsonl\n', {
      loadKind: 'rate',
    });
    const err = await planError(plan, out);
    expect(err).toMatch(
      /trace-bad\.yaml:7:11 workload\.trace\.path: .*broken-trace\.jsonl:2 needs numeric timestamp/,
    );
  });
});
