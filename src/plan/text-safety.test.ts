// Plan text that file names, manifests and strict JSON cannot carry is refused at validation with
// file:line:col and the key (issue 33 item 11): a plan file that is not UTF-8 (a latin-1 byte used to
// become U+FFFD silently), a NUL character, an unpaired surrogate from a YAML escape, in values and keys.

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { BenchgateError } from '../core/errors.js';
import { loadPlanFile } from './load.js';

const dir = mkdtempSync(join(tmpdir(), 'bg-plan-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The plan error's detail lines for a plan file of these bytes. */
async function refusal(name: string, bytes: Buffer | string): Promise<{ file: string; details: string[] }> {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  const e = await loadPlanFile(file).then(
    () => null,
    (x: unknown) => x,
  );
  expect(e, name).toBeInstanceOf(BenchgateError);
  expect((e as BenchgateError).code).toBe('BG_E_PLAN_INVALID');
  return { file, details: (e as BenchgateError).details };
}

describe('plan text that cannot be carried', () => {
  it('refuses a plan file that is not UTF-8 at its first bad byte (a latin-1 é), naming file:line:col', async () => {
    const bytes = Buffer.concat([
      Buffer.from('load:\n  levels: [1]\nname: caf'),
      Buffer.from([0xe9]),
      Buffer.from('\n'),
    ]);
    const { file, details } = await refusal('latin1.yaml', bytes);
    expect(details).toEqual([
      `${file}:3:10 (top level): byte 0xE9 is not UTF-8 (a latin-1 or other legacy encoding?); save the plan as UTF-8`,
    ]);
  });

  it.each([
    [
      'a raw NUL byte in the name',
      'name: ab\u0000c\n',
      'p.yaml:1:7 name: holds a NUL character (at character 3)',
    ],
    [
      'an escaped NUL in the name',
      'name: "ab\\0c"\n',
      'p.yaml:1:7 name: holds a NUL character (at character 3)',
    ],
    [
      'a lone high surrogate in the name',
      'name: "ab\\uD800c"\n',
      'p.yaml:1:7 name: holds an unpaired UTF-16 surrogate (U+D800 at character 3)',
    ],
    [
      'a lone low surrogate in the output directory',
      'name: ok\noutput: "r\\uDC00"\n',
      'p.yaml:2:9 output: holds an unpaired UTF-16 surrogate (U+DC00 at character 2)',
    ],
    [
      'a lone surrogate in a header name (a key)',
      'target:\n  headers:\n    "X-\\uD800": v\n',
      'p.yaml:3:5 target.headers["X-\\ud800"]: the key holds an unpaired UTF-16 surrogate',
    ],
    [
      'a NUL in a header value',
      'target:\n  headers:\n    X-A: "v\\0"\n',
      'p.yaml:3:10 target.headers.X-A: holds a NUL',
    ],
  ])('refuses %s with file:line:col and the key', async (_what, text, expected) => {
    const { file, details } = await refusal('p.yaml', text);
    expect(details).toHaveLength(1);
    expect(details[0]!.replace(file, 'p.yaml')).toContain(expected);
  });

  it('accepts UTF-8 names with accents and characters beyond the BMP unchanged', async () => {
    const file = join(dir, 'fine.yaml');
    writeFileSync(file, 'name: "café-🚀"\n');
    expect((await loadPlanFile(file)).name).toBe('café-🚀');
  });

  it('bench exits 2 on a latin-1 plan name, naming file:line:col, before starting anything', async () => {
    const file = join(dir, 'latin1-bench.yaml');
    const out = join(dir, 'out');
    writeFileSync(file, Buffer.concat([Buffer.from(`output: ${out}\nname: caf`), Buffer.from([0xe9, 0x0a])]));
    const r = await runCli(['bench', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:2:10 (top level): byte 0xE9 is not UTF-8`);
    expect(r.stderr).toContain('[BG_E_PLAN_INVALID]');
    expect(r.stderr).not.toContain('simulator');
    expect(() => readdirSync(out)).toThrow(/ENOENT/);
  }, 60_000);
});
