// A broad generated set of wrong plans (wrong types and out-of-range numbers at every key, unknown keys
// at every level, wrong nesting, empty files, YAML errors, duplicate keys, values too large for one
// process or one run): every one is refused at validation as BG_E_PLAN_INVALID, every error line names
// file:line:col (and the key, where the plan has one), none crashes or hangs (issue 24 item 6). The
// values from the fault campaign that validated and then crashed or hung are refused by name.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../cli/test-support/run-cli.js';
import { BenchgateError } from '../core/errors.js';
import { parsePlanText } from './load.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const BASE: { [k: string]: Json } = {
  name: 'full',
  target: {
    url: 'http://127.0.0.1:8000',
    engine: 'vllm',
    api: 'chat',
    model: 'm',
    headers: { 'X-A': 'b' },
    api_key_env: 'KEY',
    timeouts: { connect_s: 5, ttft_s: 60, stall_s: 30, total_s: 600 },
  },
  workload: { kind: 'prompts', input_tokens: { fixed: 128 }, output_tokens: { uniform: [8, 16] }, seed: 3 },
  load: {
    kind: 'concurrency',
    levels: [1, 2],
    requests: 10,
    warmup: 1,
    workers: 1,
    duration: '30s',
    backoff: { initial_ms: 100, max_ms: 1000 },
    error_stop: { rate: 0.5, min_requests: 5 },
  },
  slo: { ttft_ms: 100, tpot_ms: 20 },
  percentiles: [50, 99],
  expect: { config: { tp_size: 1 }, logs: [{ path: '/tmp/x.log', contains: 'ready' }], wait: '30s' },
  tools: [{ path: '/bin/true', accepts: ['--help'] }],
  gpus: { count: 1, max_memory_used_mib: 100 },
  telemetry: { interval_ms: 1000, gpus: false },
  configs: [
    { name: 'a', launch: { command: 'server', args: ['--x'], env: { A: 'b' } }, stop: { grace: '5s' } },
  ],
};

type Path = (string | number)[];
const paths = (o: Json, at: Path = [], out: Path[] = []): Path[] => {
  if (o && typeof o === 'object')
    for (const [k, v] of Object.entries(o)) {
      const p = [...at, Array.isArray(o) ? Number(k) : k];
      out.push(p);
      paths(v, p, out);
    }
  return out;
};
const at = (o: Json, p: Path): Json => p.reduce<Json>((c, k) => (c as Record<string, Json>)[k], o);
function withValue(p: Path, v: Json): string {
  const copy = structuredClone(BASE);
  (at(copy, p.slice(0, -1)) as Record<string | number, Json>)[p.at(-1)!] = v;
  return stringify(copy);
}

/** Values of the wrong type, and numbers no plan may hold, for a key whose valid value is `v`. */
function wrongFor(v: Json): Json[] {
  if (typeof v === 'number') return ['text', [], { a: 1 }, true, -1, 1e300];
  if (typeof v === 'string') return [5, [], { a: 1 }];
  if (typeof v === 'boolean') return ['yes', 1];
  if (Array.isArray(v)) return ['text', 5, { a: 1 }];
  return [5, 'text', [1]];
}

/** Replacements that are valid after all: a negative seed, a duration in seconds, a list of texts. */
const ALSO_VALID = new Set([
  'workload.seed = -1',
  'load.duration = 5',
  'expect.wait = 5',
  'configs.0.stop.grace = 5',
  'expect.logs.0.contains = []',
]);

/** Keys whose values are free-form (expectations, headers, env): any scalar is valid there. */
const FREE = /^(expect\.config\.|target\.headers\.|configs\.0\.launch\.env\.)/;

const cases: [string, string][] = [];
for (const p of paths(BASE)) {
  const key = p.join('.');
  if (FREE.test(key)) continue;
  for (const v of wrongFor(at(BASE, p))) {
    const what = `${key} = ${JSON.stringify(v)}`;
    if (!ALSO_VALID.has(what)) cases.push([what, withValue(p, v)]);
  }
  const cur = at(BASE, p);
  if (cur && typeof cur === 'object' && !Array.isArray(cur) && !FREE.test(`${key}.`))
    cases.push([`${key}.bogus_key`, withValue([...p, 'bogus_key'], 1)]);
}
cases.push(
  ['top-level bogus key', `${stringify(BASE)}bogus_key: 1\n`],
  ['levels at the top level', 'levels: [1, 2]\n'],
  ['load under target', 'target:\n  load: { levels: [1] }\n'],
  ['requests under workload', 'workload:\n  requests: 5\n'],
  ['empty file', ''],
  ['only spaces', '   \n\n'],
  ['only a comment', '# nothing yet\n'],
  ['only a document marker', '---\n'],
  ['a number', '42\n'],
  ['a list', '- a\n- b\n'],
  ['a tab for indentation', 'load:\n\tlevels: [1]\n'],
  ['an unclosed quote', 'name: "abc\n'],
  ['an unclosed bracket', 'load: { levels: [1, 2\n'],
  ['bad indentation', 'load:\n  levels: [1]\n   requests: 3\n'],
  ['a duplicate top-level key', 'name: a\nname: b\n'],
  ['a duplicate nested key', 'load:\n  levels: [1]\n  levels: [2]\n'],
  ['a duplicate key in a list item', 'configs:\n  - name: a\n    name: b\n'],
  ['a YAML tag', 'name: !!python/object/apply:os.system ["true"]\n'],
);

/** The campaign's plans that validated and then crashed, hung or allocated gigabytes, with the key each must name. */
const TOO_LARGE: [string, string, RegExp][] = [
  [
    'a 1e9-token prompt',
    'workload: { input_tokens: { fixed: 1000000000 } }\n',
    /workload\.input_tokens\.fixed: must be <= 2097152/,
  ],
  ['1000 worker threads', 'load: { workers: 1000 }\n', /load\.workers: must be <= 256/],
  [
    '1e9 prefix groups',
    'workload: { kind: shared_prefix, shared_prefix: { groups: 1000000000, prefix_tokens: 64 } }\n',
    /workload\.shared_prefix\.groups: must be <= 100000/,
  ],
  [
    'a 300-character config name',
    `configs:\n  - name: ${'c'.repeat(300)}\n    url: http://h:1\n`,
    /configs\[0\]\.name: needs at most 100 characters/,
  ],
  ['a 300-character run name', `name: ${'n'.repeat(300)}\n`, /name: needs at most 100 characters/],
  [
    'a back-off of 1e300 ms',
    'load: { backoff: { initial_ms: 1e300 } }\n',
    /load\.backoff\.initial_ms: must be <= 600000/,
  ],
  ['a health wait of 1e12 s', 'expect: { wait: 1000000000000 }\n', /expect\.wait: must be <= 86400/],
  ['a health wait of 100000 hours', 'expect: { wait: 100000h }\n', /expect\.wait: at most 86400 s/],
  [
    'a request timeout of 1e12 s',
    'target: { timeouts: { total_s: 1000000000000 } }\n',
    /target\.timeouts\.total_s: must be <= 86400/,
  ],
  [
    'a think time of 1e300 ms',
    'target: { api: chat }\nworkload: { kind: multi_turn, multi_turn: { turns: 2, think_time_ms: 1e300 } }\n',
    /think_time_ms/,
  ],
  ['1e9 requests per level', 'load: { requests: 1000000000 }\n', /load\.requests: must be <= 1000000/],
  [
    'a rate of 1e6 req/s for a week',
    'load: { kind: rate, levels: [1000000], duration: 168h }\n',
    /load\.levels\[0\]: .*schedules 604800000000 requests/,
  ],
  [
    '1000 turns of 4096 tokens',
    'target: { api: chat }\nworkload: { kind: multi_turn, multi_turn: { turns: 1000 }, input_tokens: { fixed: 4096 } }\n',
    /workload\.multi_turn\.turns: .*more than the 2097152/,
  ],
  [
    'multi_turn with 2 worker threads',
    'target: { api: chat }\nworkload: { kind: multi_turn, multi_turn: { turns: 2 } }\nload: { workers: 2 }\n',
    /load\.workers: workload\.kind multi_turn runs in one thread/,
  ],
];

/** The error parsing `text` throws; fails when it parses or throws anything but a plan error. */
function refusal(text: string): BenchgateError {
  try {
    parsePlanText(text, 'p.yaml');
  } catch (e) {
    if (!(e instanceof BenchgateError)) throw e;
    return e;
  }
  throw new Error('the plan was accepted');
}

describe(`${cases.length} generated wrong plans`, () => {
  it('are each refused as a plan error whose every line names p.yaml:line:col', () => {
    const unlocated: string[] = [];
    const accepted = cases.filter(([, text]) => {
      try {
        parsePlanText(text, 'p.yaml');
        return true;
      } catch {
        return false;
      }
    });
    expect(accepted.map(([what]) => what)).toEqual([]);
    for (const [what, text] of cases) {
      const e = refusal(text);
      expect(e.code, what).toBe('BG_E_PLAN_INVALID');
      expect(e.exitCode, what).toBe(2);
      if (e.details.length === 0 || !e.details.every((l) => /^p\.yaml:\d+:\d+ \S/.test(l)))
        unlocated.push(`${what}: ${e.message} | ${e.details.join(' / ')}`);
    }
    expect(unlocated).toEqual([]);
  });

  it('name the key at each wrong value and unknown key', () => {
    for (const [what, text] of cases.filter(([w]) => / = |bogus_key$/.test(w))) {
      const key = what.split(' = ')[0]!.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
      const e = refusal(text);
      expect(e.details.join('\n'), what).toContain(key.startsWith('top-level') ? 'bogus_key' : key);
    }
  });
});

describe('plans that used to validate, then crash, hang or exhaust memory', () => {
  for (const [what, text, expected] of TOO_LARGE)
    it(`refuses ${what}, naming file:line:col and the key`, () => {
      const e = refusal(text);
      const line = e.details.find((l) => expected.test(l));
      expect(line, e.details.join('\n')).toMatch(/^p\.yaml:\d+:\d+ /);
    });
});

describe('through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bg-bad-plans-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bench exits 2 with file:line:col for a plan too large for one process, before starting anything', async () => {
    const plan = join(dir, 'huge.yaml');
    writeFileSync(
      plan,
      `name: huge\nworkload:\n  input_tokens: { fixed: 1000000000 }\noutput: ${join(dir, 'out')}\n`,
    );
    const r = await runCli(['bench', plan]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${plan}:3:26 workload.input_tokens.fixed: must be <= 2097152`);
    expect(r.stderr).not.toContain('simulator');
  });

  it('bench examples/workload-multi-turn.yaml --workers 2 is refused at validation (exit 2): no simulator, no run directory', async () => {
    const example = new URL('../../examples/workload-multi-turn.yaml', import.meta.url).pathname;
    const out = join(dir, 'mt');
    const r = await runCli(['bench', example, '--workers', '2', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--workers (load.workers): workload.kind multi_turn runs in one thread');
    expect(r.stderr).not.toContain('simulator');
    expect(() => require('node:fs').readdirSync(out)).toThrow(/ENOENT/);
  }, 60_000);
});
