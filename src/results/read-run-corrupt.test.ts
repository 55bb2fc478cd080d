// A run directory whose files were damaged or edited by hand (a level that is null, a throughput that
// is text, a record without its chunk times, a manifest whose checkpoint or name has the wrong type) is
// refused by the reader naming the file and the key, as BG_E_RUN_DIR: `report` never reaches an
// internal error (issue 24 item 10; each case below was an internal error before).

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { BenchgateError } from '../core/errors.js';
import { FORMATS, renderFormat } from '../report/artifacts.js';
import { compareRuns } from '../report/compare.js';
import { importResultText } from './import-result.js';
import { writeImportedRun } from './import-run.js';
import { readRuns } from './read-run.js';

const FIXTURE = new URL('./fixtures/import/vllm-2026-02-bench-serve-detailed.json', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'bg-corrupt-'));
let good: string;
beforeAll(async () => {
  good = await writeImportedRun(root, importResultText(readFileSync(FIXTURE, 'utf8'), 'v.json'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: the cases edit parsed JSON of any shape
type Edit = (o: Record<string, any>) => void;

/** A copy of the good run with one JSON file edited. */
function corrupted(file: string, edit: Edit): string {
  const dir = mkdtempSync(join(root, 'c-'));
  cpSync(good, dir, { recursive: true });
  const o = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  edit(o);
  writeFileSync(join(dir, file), JSON.stringify(o));
  return dir;
}

/** What reading and reporting the run throws: a BenchgateError's code and message, never anything else. */
async function reportError(dir: string): Promise<string> {
  try {
    const cmp = compareRuns(await readRuns([dir]), { iterations: 20 });
    for (const f of FORMATS) renderFormat(cmp, f, { color: false });
  } catch (e) {
    if (!(e instanceof BenchgateError)) throw e;
    return `${e.code} ${e.message}`;
  }
  return 'read';
}

const CASES: [string, string, Edit, RegExp][] = [
  [
    'a level that is null',
    'summary.json',
    (o) => (o.levels[0] = null),
    /summary.json to hold benchgate level summaries; levels\[0\]/,
  ],
  [
    'a throughput that is null',
    'summary.json',
    (o) => (o.levels[0].throughput = null),
    /levels\[0\]\.throughput/,
  ],
  [
    'a percentile table that is text',
    'summary.json',
    (o) => (o.levels[0].ttftMs.percentiles = 'x'),
    /levels\[0\]\.ttftMs\.percentiles/,
  ],
  ['validity that is a number', 'summary.json', (o) => (o.levels[0].validity = 1), /levels\[0\]\.validity/],
  [
    'a level kind nobody writes',
    'summary.json',
    (o) => (o.levels[0].level.kind = 'burst'),
    /levels\[0\]\.level\.kind/,
  ],
  ['a client check that is null', 'summary.json', (o) => (o.levels[0].client = null), /levels\[0\]\.client/],
  [
    'token reconciliation that is null',
    'summary.json',
    (o) => (o.levels[0].tokenReconciliation = null),
    /tokenReconciliation/,
  ],
  [
    'a run name that is a number',
    'manifest.json',
    (o) => (o.name = 7),
    /manifest.json to hold a benchgate manifest; name/,
  ],
  [
    'an engine that is a list',
    'manifest.json',
    (o) => (o.verifiedTarget = { engine: [], model: 'm' }),
    /verifiedTarget\.engine/,
  ],
  ['a checkpoint that is text', 'manifest.json', (o) => (o.checkpoint = 'x'), /checkpoint/],
  [
    'a finding that is null',
    'manifest.json',
    (o) => (o.checkpoint = { findings: [null] }),
    /checkpoint\.findings\[0\]/,
  ],
  ['forced that is a number', 'manifest.json', (o) => (o.forced = 1), /forced/],
  ['a source tool that is a number', 'manifest.json', (o) => (o.source = { tool: 1 }), /source\.tool/],
  ['plan.varies that is an object', 'manifest.json', (o) => (o.plan.varies = {}), /plan\.varies/],
];

describe('a damaged run directory is a coded error naming the file and the key', () => {
  for (const [what, file, edit, expected] of CASES)
    it(what, async () => {
      const msg = await reportError(corrupted(file, edit));
      expect(msg).toMatch(/^BG_E_RUN_DIR /);
      expect(msg).toMatch(expected);
    });

  it('a record line without chunk times names the line', async () => {
    const dir = mkdtempSync(join(root, 'r-'));
    cpSync(good, dir, { recursive: true });
    const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n');
    const bad = { ...JSON.parse(lines[2]), chunkMs: 'x' };
    writeFileSync(
      join(dir, 'requests.jsonl'),
      `${[...lines.slice(0, 2), JSON.stringify(bad), ...lines.slice(3)].join('\n')}\n`,
    );
    expect(await reportError(dir)).toMatch(/requests.jsonl; line 3 has no chunkMs list of numbers/);
  });

  it('benchgate report exits 1 with the sentence, not an internal error', async () => {
    const r = await runCli(['report', corrupted('summary.json', (o) => (o.levels[0].throughput = 'fast'))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/levels\[0\]\.throughput: .*\[BG_E_RUN_DIR\]/);
    expect(r.stderr).not.toContain('internal error');
  });
});
