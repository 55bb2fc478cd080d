import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchgateError } from '../core/errors.js';
import { loadPlanFile, parsePlanText, resolvePlan } from './load.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-plan-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function planFile(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

/** The BenchgateError a promise or function rejects/throws with. */
async function failure(run: () => unknown): Promise<BenchgateError> {
  try {
    await run();
  } catch (e) {
    if (e instanceof BenchgateError) return e;
    throw e;
  }
  throw new Error('expected a BenchgateError, but it succeeded');
}

describe('loadPlanFile: valid plans', () => {
  it('loads the issue example and fills every default', async () => {
    const path = await planFile(
      'eagle.yaml',
      `name: eagle3-topk1-v2
target: { url: http://127.0.0.1:30000, engine: sglang, api: completions }
workload:
  dataset: random
  input_tokens: { fixed: 1024 }
  output_tokens: { fixed: 256 }
  seed: 1
load:
  kind: concurrency
  levels: [1, 2, 4, 8, 16, 32, 64]
  requests: 200
  warmup: 8
slo: { ttft_ms: 2000, tpot_ms: 50 }
output: results
`,
    );
    const plan = await loadPlanFile(path);
    expect(plan.name).toBe('eagle3-topk1-v2');
    expect(plan.target).toMatchObject({
      url: 'http://127.0.0.1:30000',
      engine: 'sglang',
      api: 'completions',
    });
    expect(plan.target.timeouts).toEqual({ connect_s: 10, ttft_s: 300, stall_s: 60, total_s: 1800 });
    expect(plan.workload).toMatchObject({
      input_tokens: { fixed: 1024 },
      output_tokens: { fixed: 256 },
      temperature: 0,
    });
    expect(plan.load).toMatchObject({
      kind: 'concurrency',
      levels: [1, 2, 4, 8, 16, 32, 64],
      requests: 200,
      warmup: 8,
    });
    expect(plan.slo).toEqual({ ttft_ms: 2000, tpot_ms: 50 });
    expect(plan.percentiles).toEqual([50, 90, 95, 99]);
    expect(plan.host).toBe('local');
  });

  it('accepts JSON (it is YAML), tabs included, and names the run after the file', async () => {
    const path = await planFile(
      'sweep-a.json',
      '{\n\t"load": {"kind": "rate", "levels": [0.5, 2.5], "arrival": "gamma", "burstiness": 0.5, "max_concurrency": 64, "duration": "1h30m"}\n}\n',
    );
    const plan = await loadPlanFile(path);
    expect(plan.name).toBe('sweep-a');
    expect(plan.load).toMatchObject({ kind: 'rate', levels: [0.5, 2.5], burstiness: 0.5, duration: '1h30m' });
  });

  it('resolves YAML anchors and aliases', async () => {
    const path = await planFile(
      'alias.yaml',
      'slo: &s { ttft_ms: 100 }\nconfigs:\n  - name: a\n    expect: { wait: 30 }\n',
    );
    expect((await loadPlanFile(path)).slo).toEqual({ ttft_ms: 100 });
  });
});

describe('loadPlanFile: invalid plans list every error with file:line:col and key', () => {
  it('reports all schema and cross-key errors at once, in source order', async () => {
    const path = await planFile(
      'bad.yaml',
      `target: { url: http://127.0.0.1:30000, api: completionz }
workload:
  input_tokens: { fixed: 0 }
  output_tokens: { uniform: [300, 200] }
  colour: blue
load:
  levels: [1, 2, 2.5, 8, 8]
  request: 200
  max_concurrency: 4
  duration: 15m30
slo: { ttft_ms: 2000, tpot_ms: -50 }
configs:
  - name: base
  - name: base
  - launch: { command: python }
`,
    );
    const e = await failure(() => loadPlanFile(path));
    expect(e.code).toBe('BG_E_PLAN_INVALID');
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(`plan ${path} is invalid: 12 errors`);
    expect(e.details).toEqual([
      `${path}:1:45 target.api: expected one of: completions, chat, native`,
      `${path}:3:26 workload.input_tokens.fixed: must be > 0`,
      `${path}:4:18 workload.output_tokens: uniform: [a, b] needs a <= b`,
      `${path}:5:3 workload.colour: unknown key; expected one of: kind, output_lengths, shared_prefix, trace, multi_turn, dataset, input_tokens, output_tokens, ignore_eos, temperature, seed, salt, tokenizer`,
      `${path}:7:18 load.levels[2]: a concurrency level is a whole number of requests in flight, found 2.5 (for requests/s use kind: rate)`,
      `${path}:7:26 load.levels[4]: level 8 is listed twice (also at index 3)`,
      `${path}:8:3 load.request: unknown key; did you mean "requests"?`,
      `${path}:9:3 load.max_concurrency: max_concurrency applies only to kind: rate (open loop); with kind: concurrency the level itself fixes the requests in flight`,
      `${path}:10:13 load.duration: expected a duration such as "90s", "15m" or "1h30m"`,
      `${path}:11:32 slo.tpot_ms: must be > 0`,
      `${path}:14:11 configs[1].name: config name "base" is already used by configs[0]; names must be unique`,
      `${path}:15:5 configs[2].name: this required key is missing`,
    ]);
  });

  it('points a missing required key at its parent key', async () => {
    const path = await planFile('tool.yaml', 'name: x\ntools:\n  - required: false\n');
    expect((await failure(() => loadPlanFile(path))).details).toEqual([
      `${path}:3:5 tools[0].path: this required key is missing`,
    ]);
  });

  it('points an unknown key at the key itself, also inside a token-length choice', async () => {
    const path = await planFile(
      'unknown.yaml',
      'workload:\n  input_tokens:\n    fixed: 5\n    extra: 1\nbogus: true\n',
    );
    expect((await failure(() => loadPlanFile(path))).details).toEqual([
      `${path}:4:5 workload.input_tokens.extra: unknown key; expected one of: fixed`,
      `${path}:5:1 bogus: unknown key; expected one of: name, target, workload, load, slo, percentiles, output, host, expect, tools, gpus, varies, configs, lossless, telemetry`,
    ]);
  });

  it('describes a value of the wrong kind by what was expected and what was found', async () => {
    const path = await planFile(
      'types.yaml',
      'load:\n  levels: 4\nexpect:\n  wait: true\npercentiles: [50, 50]\n',
    );
    expect((await failure(() => loadPlanFile(path))).details).toEqual([
      `${path}:2:11 load.levels: expected a list, found a whole number`,
      `${path}:4:9 expect.wait: expected a duration of at most 24 h: seconds as a number, or a string such as "250ms", "90s", "15m", "1h30m"; found true`,
      `${path}:5:19 percentiles[1]: percentile 50 is listed twice (also at index 0)`,
    ]);
  });

  it('explains a malformed config expectation and token length by what each accepts', async () => {
    const path = await planFile(
      'expect.yaml',
      'expect:\n  config:\n    tp_size: { gte: 8 }\nworkload:\n  output_tokens: 128\n  input_tokens: { uniform: [1] }\n',
    );
    expect((await failure(() => loadPlanFile(path))).details).toEqual([
      `${path}:3:14 expect.config.tp_size: expected an expectation: a bare value (must equal it) or one of { equals }, { one_of: [...] }, { ">=": n }, { "<=": n }, { regex }, { present: true }, { absent: true }; found a mapping`,
      `${path}:5:18 workload.output_tokens: expected a token length distribution: { fixed: N }, { uniform: [a, b] } (inclusive) or { normal: { mean, std } } (clamped to >= 1); found a whole number`,
      `${path}:6:28 workload.input_tokens.uniform: needs at least 2 items`,
    ]);
  });

  it('rejects open-loop options that do not fit the arrival process, and a zero duration', async () => {
    const path = await planFile(
      'rate.yaml',
      'load:\n  kind: rate\n  levels: [2.5]\n  burstiness: 2\n  duration: 0s\n',
    );
    expect((await failure(() => loadPlanFile(path))).details).toEqual([
      `${path}:4:3 load.burstiness: burstiness applies only to arrival: gamma (1, the default, means Poisson)`,
      `${path}:5:13 load.duration: must be longer than 0 seconds`,
    ]);
  });

  it('never echoes an API key pasted where the variable name belongs', async () => {
    const secret = 'sk-live-1234567890abcdef';
    const path = await planFile('key.yaml', `target:\n  api_key_env: ${secret}\n`);
    const e = await failure(() => loadPlanFile(path));
    expect(e.details).toEqual([
      `${path}:2:16 target.api_key_env: expected the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself`,
    ]);
    expect(JSON.stringify({ m: e.message, d: e.details })).not.toContain(secret);
  });

  it('refuses credentials inside a URL without repeating them', async () => {
    const path = await planFile(
      'creds.yaml',
      'target:\n  url: http://bob:hunter2@10.0.0.1:8000\nconfigs:\n  - name: a\n    url: http://10.0.0.1:8000/?api_key=hunter3\n  - name: b\n    url: http://10.0.0.1:8000/?model=x\n',
    );
    const e = await failure(() => loadPlanFile(path));
    const why =
      'the URL carries credentials, which would be written into results; use api_key_env or headers instead';
    expect(e.details).toEqual([`${path}:2:8 target.url: ${why}`, `${path}:5:10 configs[0].url: ${why}`]);
    expect(JSON.stringify(e.details)).not.toMatch(/hunter/);
  });

  it('rejects the native API for an engine that does not serve it', async () => {
    const path = await planFile('native.yaml', 'target: { engine: vllm, api: native }\n');
    expect((await failure(() => loadPlanFile(path))).details).toEqual([
      `${path}:1:30 target.api: api: native is SGLang's /generate endpoint; engine vllm does not serve it (use completions or chat)`,
    ]);
  });

  it('refuses workload.kind multi_turn without the chat API or with open-loop load, naming the keys', async () => {
    const path = await planFile(
      'multi-turn.yaml',
      'target: { api: completions }\nworkload: { kind: multi_turn, multi_turn: { turns: 3 } }\nload: { kind: rate, levels: [2] }\n',
    );
    expect((await failure(() => loadPlanFile(path))).details).toEqual([
      `${path}:1:16 target.api: workload.kind multi_turn sends each turn's whole history as chat messages: set target.api: chat (found completions)`,
      `${path}:3:15 load.kind: workload.kind multi_turn runs closed loop: each stream is one user waiting for its reply and thinking before the next turn; set load.kind: concurrency (or slo_search over: concurrency)`,
    ]);
  });

  it('needs a multi_turn block for workload.kind multi_turn and checks its think time', async () => {
    const missing = await planFile(
      'mt-missing.yaml',
      'target: { api: chat }\nworkload: { kind: multi_turn }\n',
    );
    expect((await failure(() => loadPlanFile(missing))).details).toEqual([
      expect.stringMatching(/workload\.multi_turn: workload\.kind multi_turn needs a multi_turn: block$/),
    ]);
    const bad = await planFile(
      'mt-bad.yaml',
      'target: { api: chat }\nworkload:\n  kind: multi_turn\n  multi_turn: { turns: 0, think_time_ms: { uniform: [500, 100] } }\n',
    );
    const details = (await failure(() => loadPlanFile(bad))).details.join('\n');
    expect(details).toMatch(/workload\.multi_turn\.turns: must be > 0/);
    expect(details).toMatch(/workload\.multi_turn\.think_time_ms/);
    const ok = await planFile(
      'mt-ok.yaml',
      'target: { api: chat }\nworkload:\n  kind: multi_turn\n  multi_turn: { turns: 4, think_time_ms: { exponential: 500 } }\n',
    );
    expect((await loadPlanFile(ok)).workload.multi_turn).toEqual({
      turns: 4,
      think_time_ms: { exponential: 500 },
    });
  });
});

describe('loadPlanFile: files that are not plans', () => {
  it('reports a YAML syntax error with its line and column', async () => {
    const path = await planFile('syntax.yaml', 'load:\n  levels: [1, 2\nslo: {}\n');
    const e = await failure(() => loadPlanFile(path));
    expect(e.code).toBe('BG_E_PLAN_INVALID');
    expect(e.message).toMatch(new RegExp(`^plan ${path} is not valid YAML at line \\d+, column \\d+`));
    expect(e.details[0]).toMatch(new RegExp(`^${path}:\\d+:\\d+ `));
  });

  it('treats a repeated key as an error, not a silent override', async () => {
    const path = await planFile('dup.yaml', 'output: a\noutput: b\n');
    const e = await failure(() => loadPlanFile(path));
    expect(e.message).toBe(`plan ${path} is not valid YAML at line 2, column 1`);
    expect(e.details).toEqual([
      `${path}:2:1 key "output" is given twice; each key may appear once (the second would silently win)`,
    ]);
  });

  it('names a nested duplicate key with its enclosing keys', async () => {
    const path = await planFile('dup2.yaml', 'target:\n  url: http://a:1\n  url: http://b:1\n');
    const e = await failure(() => loadPlanFile(path));
    expect(e.details[0]).toContain(`${path}:3:3 key "target.url" is given twice`);
  });

  it('refuses YAML tags that other loaders turn into objects or code', async () => {
    const path = await planFile(
      'tags.yaml',
      'name: !!python/object/apply:os.system ["id"]\noutput: !custom results\nload: { levels: [!!int 1] }\nworkload: { dataset: !!binary aGVsbG8= }\n',
    );
    const e = await failure(() => loadPlanFile(path));
    expect(e.code).toBe('BG_E_PLAN_INVALID');
    expect(e.details).toEqual([
      `${path}:1:7 YAML tag !!python/object/apply:os.system is not allowed in a plan; write a plain value (string, number, boolean, list or mapping)`,
      `${path}:2:9 YAML tag !custom is not allowed in a plan; write a plain value (string, number, boolean, list or mapping)`,
      `${path}:4:22 YAML tag !!binary is not allowed in a plan; write a plain value (string, number, boolean, list or mapping)`,
    ]);
  });

  it('rejects several YAML documents in one file', async () => {
    const path = await planFile('multi.yaml', 'output: a\n---\noutput: b\n');
    expect((await failure(() => loadPlanFile(path))).message).toMatch(
      /is not valid YAML at line 2, column 1$/,
    );
  });

  it('reports an alias to a missing anchor', async () => {
    const path = await planFile('badalias.yaml', 'slo: *nope\n');
    expect((await failure(() => loadPlanFile(path))).message).toMatch(/is not valid YAML/);
  });

  it('says what it found instead of a plan: nothing, a directory, an empty file, a list', async () => {
    const missing = join(dir, 'missing.yaml');
    expect((await failure(() => loadPlanFile(missing))).message).toBe(
      `expected a readable plan file at ${missing}, found no such file`,
    );
    const sub = join(dir, 'sub');
    await mkdir(sub, { recursive: true });
    expect((await failure(() => loadPlanFile(sub))).message).toBe(
      `expected a readable plan file at ${sub}, found a directory`,
    );
    const empty = await planFile('empty.yaml', '# nothing yet\n');
    const e = await failure(() => loadPlanFile(empty));
    expect(e.message).toBe(`plan ${empty} is empty`);
    expect(e.details).toEqual([
      `${empty}:1:1 (top level): the plan is empty; expected a mapping of options such as target, workload and load`,
    ]);
    const list = await planFile('list.yaml', '- 1\n- 2\n');
    expect((await failure(() => loadPlanFile(list))).details).toEqual([
      `${list}:1:1 (top level): expected a mapping, found a list`,
    ]);
  });
});

describe('resolvePlan (plans built from flags)', () => {
  it('applies defaults and names the run "bench"', () => {
    const plan = resolvePlan(
      { load: { levels: [1, 8] }, workload: { input_tokens: { fixed: 16 } } },
      'command line',
    );
    expect(plan.name).toBe('bench');
    expect(plan.load.levels).toEqual([1, 8]);
    expect(plan.workload.output_tokens).toEqual({ fixed: 256 });
  });

  it('takes load.workers as a count or auto, default 1, and refuses 0 naming the key', async () => {
    expect(resolvePlan({}, 'command line').load.workers).toBe(1);
    expect(resolvePlan({ load: { workers: 'auto' } }, 'command line').load.workers).toBe('auto');
    expect(resolvePlan({ load: { workers: 3 } }, 'command line').load.workers).toBe(3);
    const e = await failure(() => resolvePlan({ load: { workers: 0 } } as never, 'command line'));
    expect(e.details.join('\n')).toMatch(/load\.workers/);
  });

  it('says a flag value that did not parse as a number is not a number', () => {
    try {
      resolvePlan({ load: { levels: [Number.NaN] } }, 'command line', {
        flags: { 'load.levels': '--concurrency' },
      });
      throw new Error('expected an error');
    } catch (e) {
      expect((e as BenchgateError).details).toEqual([
        'command line --concurrency (load.levels[0]): expected a number, found not a number',
      ]);
    }
  });

  it('accepts a plan that was already loaded and resolved, unchanged (plan file + flags)', async () => {
    const closed = await planFile('closed.yaml', 'load: { levels: [1, 4], requests: 10 }\n');
    const open = await planFile('open.yaml', 'load: { kind: rate, levels: [0.5], max_concurrency: 8 }\n');
    for (const path of [closed, open]) {
      const plan = await loadPlanFile(path);
      expect(resolvePlan(plan, `${path} + flags`)).toEqual(plan);
    }
  });

  it('still rejects a non-default open-loop option with kind: concurrency', () => {
    expect(() => resolvePlan({ load: { levels: [2], arrival: 'gamma' } }, 'flags')).toThrow(
      /invalid: 1 error/,
    );
  });

  it('names the flag that set a bad value, and the key when no flag did', () => {
    const e = (() => {
      try {
        resolvePlan(
          { load: { levels: [0, 1.5] }, output: '' as unknown as string, percentiles: [100] },
          'command line',
          {
            flags: { 'load.levels': '--concurrency', 'load.requests': '--requests' },
          },
        );
      } catch (err) {
        return err as BenchgateError;
      }
      throw new Error('expected an error');
    })();
    expect(e.message).toBe('plan from command line is invalid: 4 errors');
    expect(e.details).toEqual([
      'command line --concurrency (load.levels[0]): must be > 0',
      'command line percentiles[0]: must be < 100',
      'command line output: expected a directory path, found an empty string',
      'command line --concurrency (load.levels[1]): a concurrency level is a whole number of requests in flight, found 1.5 (for requests/s use kind: rate)',
    ]);
  });
});

describe('varies keys', () => {
  it('accepts config keys and prefix wildcards, and names a malformed key with its position', () => {
    expect(parsePlanText('varies: [speculative.*, overlap_schedule, sglang.*]\n', 'p.yaml').varies).toEqual([
      'speculative.*',
      'overlap_schedule',
      'sglang.*',
    ]);
    const err = (() => {
      try {
        parsePlanText('varies: [tp_size, "spec*"]\n', 'p.yaml');
      } catch (e) {
        return e as BenchgateError;
      }
      return null;
    })();
    expect(err?.details).toEqual([
      'p.yaml:1:19 varies[1]: expected a configuration key such as speculative.topk or tp_size, or a prefix such as speculative.*',
    ]);
  });
});

describe('files a plan names', () => {
  it('resolves the dataset and tokenizer against the plan file folder, and leaves random alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bg-plan-paths-'));
    await mkdir(join(dir, 'data'));
    const plan = join(dir, 'plan.yaml');
    await writeFile(plan, 'workload:\n  dataset: data/prompts.jsonl\n  tokenizer: /abs/tokenizer.json\n');
    const p = await loadPlanFile(plan);
    expect(p.workload.dataset).toBe(join(dir, 'data', 'prompts.jsonl'));
    expect(p.workload.tokenizer).toBe('/abs/tokenizer.json');
    await writeFile(plan, 'workload: { dataset: random }\n');
    expect((await loadPlanFile(plan)).workload.dataset).toBe('random');
    await rm(dir, { recursive: true });
  });
});

describe('parsePlanText: values that are well-formed but unusable', () => {
  it('rejects non-http(s) target and config URLs, naming the scheme', () => {
    const text =
      'target: { url: "ftp://127.0.0.1:21" }\nconfigs:\n  - name: a\n    url: "file:///etc/passwd"\n';
    const e = (() => {
      try {
        parsePlanText(text, 'p.yaml');
      } catch (x) {
        return x as BenchgateError;
      }
      throw new Error('accepted');
    })();
    expect(e.details).toEqual([
      'p.yaml:1:16 target.url: expected an http:// or https:// URL, found ftp://',
      'p.yaml:4:10 configs[0].url: expected an http:// or https:// URL, found file://',
    ]);
  });

  it('rejects invalid regular expressions at validation, before any server is contacted', () => {
    const text = [
      'expect:',
      '  config:',
      '    speculative.algorithm: { regex: "EAGLE(3" }',
      '  logs:',
      '    - { path: /tmp/x.log, regex: ["ok", "[unclosed"] }',
      'gpus: { model: "/H100(/" }',
      'configs:',
      '  - name: a',
      '    expect: { logs: [ { path: /tmp/y.log, regex: "*bad" } ] }',
    ].join('\n');
    let e: BenchgateError | null = null;
    try {
      parsePlanText(text, 'p.yaml');
    } catch (x) {
      e = x as BenchgateError;
    }
    expect(e?.code).toBe('BG_E_PLAN_INVALID');
    expect(e?.details).toEqual([
      expect.stringMatching(
        /^p\.yaml:3:37 expect\.config\["speculative\.algorithm"\]\.regex: invalid regular expression: \/EAGLE\(3\/: Unterminated group$/,
      ),
      expect.stringMatching(/^p\.yaml:5:41 expect\.logs\[0\]\.regex\[1\]: invalid regular expression: /),
      expect.stringMatching(/^p\.yaml:6:16 gpus\.model: /),
      expect.stringMatching(
        /^p\.yaml:9:50 configs\[0\]\.expect\.logs\[0\]\.regex: invalid regular expression: /,
      ),
    ]);
  });

  it('rejects an empty output directory', () => {
    expect(() => parsePlanText("output: ''\n", 'p.yaml')).toThrow(BenchgateError);
    try {
      parsePlanText("output: ''\n", 'p.yaml');
    } catch (x) {
      expect((x as BenchgateError).details).toEqual([
        'p.yaml:1:9 output: expected a directory path, found an empty string',
      ]);
    }
  });
});

describe('the prompt salt', () => {
  it('is fresh for each resolved plan unless the plan sets it, so each run sends unseen prompts', () => {
    const a = resolvePlan({}, 'flags');
    const b = resolvePlan({}, 'flags');
    expect(a.workload.salt).toBeGreaterThan(0);
    expect(b.workload.salt).not.toBe(a.workload.salt);
    expect(resolvePlan({ workload: { salt: 42 } }, 'flags').workload.salt).toBe(42);
    expect(parsePlanText('workload: { salt: 7 }', 'p.yaml').workload.salt).toBe(7);
    expect(parsePlanText('name: x', 'p.yaml').workload.salt).toBeGreaterThan(0);
  });
});

describe('repeated trials', () => {
  it('are accepted in the matrix (it runs its configs in rounds) and refused for an SLO search, naming the key', () => {
    const matrix = parsePlanText(
      'load: { trials: 3 }\nconfigs:\n  - name: a\n    launch: { command: "true" }\n    url: http://127.0.0.1:1',
      'm.yaml',
    );
    expect(matrix.load.trials).toBe(3);
    const search = () =>
      parsePlanText(
        'load: { kind: slo_search, trials: 2, slo_search: { over: rate, min: 1, max: 4 } }\nslo: { ttft_ms: 100 }',
        's.yaml',
      );
    expect(search).toThrow(/plan s\.yaml is invalid/);
    try {
      search();
    } catch (e) {
      expect((e as BenchgateError).details.join('\n')).toMatch(
        /s\.yaml:1:\d+ load\.trials: an SLO search probes loads of its own/,
      );
    }
    expect(resolvePlan({ load: { trials: 3 } }, 'flags').load.trials).toBe(3);
  });
});
