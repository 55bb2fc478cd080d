// The llama.cpp adapter against documents captured from a real llama-server (commit 3f545becc, CPU build,
// tiny random-weight LLaMA models): see fixtures/llamacpp/README.md for how each was produced.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';
import { llamacppAdapter, llamacppSpecCounters, llamacppTokenizeRequest } from './llamacpp.js';

const dir = join(import.meta.dirname, 'fixtures', 'llamacpp');
const fixture = (name: string) => readFileSync(join(dir, name), 'utf8');

describe('llama.cpp live endpoints (speculating server)', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer({
      '/props': JSON.parse(fixture('props-spec.json')),
      '/slots': JSON.parse(fixture('slots-spec.json')),
      '/health': { status: 'ok' },
    });
  });
  afterAll(() => server.close());

  it('reads build, slots, per-slot n_ctx and speculative: true from /slots', async () => {
    const { facts, raw } = await llamacppAdapter.readLive(createTargetHttp(server.url));
    expect(facts.engine.value).toBe('llamacpp');
    expect(facts.engine_version.value).toBe('b0-unknown');
    expect(facts.max_running_requests).toEqual({ value: 4, source: 'GET /props' });
    expect(facts.context_length.value).toBe(512);
    expect(facts['llamacpp.speculative']).toEqual({ value: true, source: 'GET /slots' });
    expect(facts['speculative.algorithm']).toBeUndefined();
    expect(raw['/slots']).toHaveLength(4);
    expect(await llamacppAdapter.detect(createTargetHttp(server.url))).toBe(true);
  });

  it('does not take /props speculative.types ("none" while speculating) as a fact', async () => {
    const { facts } = await llamacppAdapter.readLive(createTargetHttp(server.url));
    expect(
      JSON.parse(fixture('props-spec.json')).default_generation_settings.params['speculative.types'],
    ).toBe('none');
    expect(facts['llamacpp.params.speculative.types']).toBeUndefined();
    expect(facts['llamacpp.params.temperature']).toBeDefined();
  });

  it('does not take the per-start random media_marker as configuration', async () => {
    const { facts } = await llamacppAdapter.readLive(createTargetHttp(server.url));
    expect(JSON.parse(fixture('props-spec.json')).media_marker).toMatch(/^<__media_/);
    expect(facts['llamacpp.media_marker']).toBeUndefined();
  });
});

describe('llama.cpp live endpoints (no speculation)', () => {
  it('reads speculative off from /slots as an absent algorithm, not unknown', async () => {
    const server = await startFixtureServer({ '/slots': JSON.parse(fixture('slots-plain.json')) });
    try {
      const { facts } = await llamacppAdapter.readLive(createTargetHttp(server.url));
      expect(facts['speculative.algorithm'].value).toBeNull();
      expect(facts['llamacpp.speculative'].value).toBe(false);
      expect(facts.context_length).toEqual({ value: 512, source: 'GET /slots' });
    } finally {
      await server.close();
    }
  });

  it('recognises a router-mode server by /props role', async () => {
    const server = await startFixtureServer({
      '/props': { role: 'router', max_instances: 4, model_path: 'none', build_info: 'b0-unknown' },
    });
    try {
      const http = createTargetHttp(server.url);
      expect(await llamacppAdapter.detect(http)).toBe(true);
      const { facts } = await llamacppAdapter.readLive(http);
      expect(facts['llamacpp.role'].value).toBe('router');
      expect(facts.model).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe('llama.cpp command line', () => {
  const read = (argv: string[], env: Record<string, string> | null = null) =>
    llamacppAdapter.readProcess(['llama-server', ...argv], env, 'pid 1');

  it('reads --spec-type and the draft model', () => {
    const f = read([
      '-m',
      'main.gguf',
      '-md',
      'draft.gguf',
      '--spec-type',
      'draft-simple',
      '-t',
      '1',
      '-td',
      '1',
    ]);
    expect(f['speculative.algorithm'].value).toBe('DRAFT-SIMPLE');
    expect(f['speculative.draft_model'].value).toBe('draft.gguf');
    // the default depth depends on the build: unknown without one
    expect(f['speculative.num_steps']).toBeUndefined();
    expect(f['llamacpp.spec_draft_threads'].value).toBe(1);
  });

  it.each([
    ['b10587-3f545becc', 3],
    ['b9300-0123456', 3],
    ['b7205-ab49f094d', 16],
    ['b9240-0123456', undefined],
  ])('the default draft depth on build %s is %s', (build, depth) => {
    const f = readWith(['-md', 'd.gguf', '--spec-type', 'draft-simple'], { engine_version: build });
    expect(f['speculative.num_steps']?.value).toBe(depth);
    if (depth !== undefined)
      expect(f['speculative.num_steps'].source).toContain('b9247 (2026-05-19, commit d14ce3dab');
  });

  it('reads --spec-draft-n-max and the --model-draft=... spelling', () => {
    const f = read(['--model-draft=d.gguf', '--spec-type=draft-eagle3', '--spec-draft-n-max', '8']);
    expect(f['speculative.draft_model'].value).toBe('d.gguf');
    expect(f['speculative.algorithm'].value).toBe('DRAFT-EAGLE3');
    expect(f['speculative.num_steps']).toEqual({ value: 8, source: 'pid 1' });
  });

  const readWith = (argv: string[], live: Record<string, string | boolean>) =>
    llamacppAdapter.readProcess(
      ['llama-server', ...argv],
      null,
      'pid 1',
      Object.fromEntries(Object.entries(live).map(([k, value]) => [k, { value, source: 'GET /props' }])),
    );

  it.each([
    [
      'a 2026-08 build (b10587): loads a draft but does not speculate',
      { engine_version: 'b10587-3f545becc' },
      null,
    ],
    [
      'a late-2025 build (b7205): the draft model speculates',
      { engine_version: 'b7205-ab49f094d' },
      'DRAFT-SIMPLE',
    ],
    ['/slots speculative: true on any build', { 'llamacpp.speculative': true }, 'DRAFT-SIMPLE'],
    ['/slots speculative: false on any build', { 'llamacpp.speculative': false }, null],
  ])('-md without --spec-type, %s', (_name, live, algorithm) => {
    const f = readWith(['-m', 'main.gguf', '-md', 'draft.gguf'], live);
    expect(f['speculative.algorithm']).toMatchObject({ value: algorithm, inferred: true });
    expect(f['speculative.algorithm'].source).toContain('-md without a --spec-type');
    expect(f['speculative.draft_model'].value).toBe('draft.gguf');
  });

  it.each([
    ['no build at all', {}, 'the server did not say its build'],
    ['a build without git metadata', { engine_version: 'b0-unknown' }, 'without git metadata'],
    ['a build next to the change (b9470)', { engine_version: 'b9470-aaaaaaa' }, 'too close to b9474'],
  ])('-md without --spec-type on %s: the algorithm stays unknown and says why', (_n, live, why) => {
    const f = readWith(['-m', 'main.gguf', '-md', 'draft.gguf'], live);
    expect(f['speculative.algorithm']).toBeUndefined();
    expect(f['llamacpp.speculation_rule'].value).toContain(why);
    expect(f['llamacpp.speculation_rule'].value).toContain('b9474 (2026-06-01, commit 5dcb71166, #23988)');
  });

  it('no draft model and no --spec-type: algorithm absent, not unknown', () => {
    const f = read(['-m', 'main.gguf', '-np', '4', '-c', '2048']);
    expect(f['speculative.algorithm'].value).toBeNull();
    // no -md on the command line is no draft model (absent), so `{ absent: true }` can pass (issue 30 item 7)
    expect(f['speculative.draft_model']).toMatchObject({ value: null, inferred: true });
    expect(f.context_length).toMatchObject({ value: 512, inferred: true });
  });

  it('ngram types speculate without a draft model; --spec-default means ngram-mod', () => {
    expect(read(['--spec-type', 'ngram-simple'])['speculative.algorithm'].value).toBe('NGRAM-SIMPLE');
    expect(read(['--spec-default'])['speculative.algorithm'].value).toBe('NGRAM-MOD');
    expect(
      readWith(['--spec-type', 'none', '-md', 'd.gguf'], { engine_version: 'b10587-3f545becc' })[
        'speculative.algorithm'
      ].value,
    ).toBeNull();
    // type names before b9146 read as today's
    expect(read(['--spec-type', 'ngram_simple,draft'])['speculative.algorithm'].value).toBe(
      'NGRAM-SIMPLE,DRAFT-SIMPLE',
    );
  });

  it('reads LLAMA_ARG_* environment variables when the flag is not given', () => {
    const f = read(['-m', 'main.gguf'], {
      LLAMA_ARG_SPEC_TYPE: 'draft-simple',
      LLAMA_ARG_SPEC_DRAFT_MODEL: 'd.gguf',
    });
    expect(f['speculative.algorithm']).toEqual({ value: 'DRAFT-SIMPLE', source: 'pid 1 (environment)' });
    expect(f['speculative.draft_model'].value).toBe('d.gguf');
  });
});

describe('llama.cpp /metrics speculative counters', () => {
  it('reads draft, accepted, drafts and per-position counters', () => {
    const c = llamacppSpecCounters(fixture('metrics-spec.txt'));
    expect(c).toEqual({
      drafts: 261,
      verifySteps: 261,
      draftTokens: 774,
      acceptedTokens: 5,
      acceptedTokensPerPosition: [5, 0, 0],
      generationTokens: 272,
    });
  });

  it('a server without speculation exposes the counters at zero', () => {
    const c = llamacppSpecCounters(fixture('metrics-plain.txt'));
    expect(c).toMatchObject({ drafts: 0, draftTokens: 0, acceptedTokens: 0 });
    expect(llamacppSpecCounters('# nothing here\n')).toBeNull();
  });
});

describe('llama.cpp logs (2026 format)', () => {
  it('default verbosity: the verbosity line starts, listening is ready, slots and draft are read', () => {
    const r = llamacppAdapter.readLog(fixture('start-spec-default.log'), 'spec.log');
    expect(r.startMarkerLines).toEqual([1]);
    expect(r.readyLine).toBe(12);
    expect(r.facts.model.value).toBe('main.gguf');
    expect(r.facts['speculative.draft_model']).toEqual({ value: 'draft.gguf', source: 'spec.log:9' });
    expect(r.facts.max_running_requests.value).toBe(4);
    expect(r.facts.context_length.value).toBe(512);
    expect(r.facts.engine_version).toBeUndefined();
    expect(r.crashes).toEqual([]);
  });

  it('reads per-request "draft acceptance" lines into totals', () => {
    const r = llamacppAdapter.readLog(fixture('start-spec-default.log'), 'spec.log');
    const lines = fixture('start-spec-default.log')
      .split('\n')
      .filter((l) => l.includes('draft acceptance'));
    expect(r.facts['llamacpp.log_draft_requests'].value).toBe(lines.length);
    expect(r.facts['llamacpp.log_draft_accepted_tokens'].value).toBe(10);
    expect(r.facts['llamacpp.log_draft_generated_tokens'].value).toBe(1518);
  });

  it('reads the same lines as acceptance samples: some accepted here, never accepted when every line says 0', () => {
    const text = fixture('start-spec-default.log');
    const r = llamacppAdapter.readLog(text, 'spec.log');
    expect(r.acceptance).toMatchObject({ acceptedTokens: 10, draftedTokens: 1518, neverAccepted: false });
    expect(r.acceptance!.maxMeanLength).toBeCloseTo(1.02, 5);
    const rejected = text
      .split('\n')
      .filter((l) => !/draft acceptance = 0\.0[1-9]|\(\s*[1-9]\d* accepted/.test(l))
      .join('\n');
    const never = llamacppAdapter.readLog(rejected, 'spec.log').acceptance;
    expect(never?.lines).toBeGreaterThan(0);
    expect(never?.neverAccepted).toBe(true);
  });

  it('verbosity 4: build and verbosity lines are one start; -md without --spec-type reads as no speculation', () => {
    const r = llamacppAdapter.readLog(fixture('start-lv4-draft-without-spec-type.log'), 'lv4.log');
    expect(r.startMarkerLines).toEqual([1]);
    expect(r.facts.engine_version.value).toBe('b0-unknown');
    expect(r.facts['speculative.algorithm']).toEqual({ value: null, source: 'lv4.log:21' });
    expect(r.facts.context_length.value).toBe(4096);
    expect(r.readyLine).toBe(29);
  });

  it('reads the version of a tagged build and finds two starts in one file', () => {
    const log = [
      '0.00.003.856 I cmn  common_param: common_params_print_info: build 10587 (3f545becc) with GNU 12.2.0 for Linux x86_64',
      '0.00.003.865 I cmn  common_param: common_params_print_info: verbosity = 4 (adjust with the `-lv N` CLI arg)',
      '0.00.197.320 I srv  llama_server: listening on http://127.0.0.1:8080',
      '0.00.003.127 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)',
      "0.00.009.762 I srv    load_model: loading model 'main.gguf'",
    ].join('\n');
    const r = llamacppAdapter.readLog(log, 'x.log');
    expect(r.startMarkerLines).toEqual([1, 4]);
    expect(r.readyLine).toBeNull();
    expect(r.facts.engine_version).toBeUndefined();
    expect(
      llamacppAdapter.readLog(log.split('\n').slice(0, 3).join('\n'), 'x.log').facts.engine_version.value,
    ).toBe('b10587-3f545becc');
  });

  it('reads a log written with --log-prefix but no timestamps (level letter only)', () => {
    const log = [
      'I build: 6500 (1a2b3c4d5) with cc (GCC) 13.2.0 for x86_64-linux-gnu',
      "I srv    load_model: loading model '/m/q.gguf'",
      'I srv    load_model: initializing slots, n_slots = 2',
      'I main: server is listening on http://127.0.0.1:8080 - starting the main loop',
    ].join('\n');
    const r = llamacppAdapter.readLog(log, 'p.log');
    expect(r.startMarkerLines).toEqual([1]);
    expect(r.facts.engine_version.value).toBe('b6500-1a2b3c4d5');
    expect(r.facts.model.value).toBe('/m/q.gguf');
    expect(r.facts.max_running_requests.value).toBe(2);
    expect(r.readyLine).toBe(4);
  });

  it('router mode: recognised, ready at listening', () => {
    const r = llamacppAdapter.readLog(fixture('router.log'), 'router.log');
    expect(r.facts['llamacpp.role'].value).toBe('router');
    expect(r.readyLine).toBe(18);
  });

  it('a model that fails to load is a failed start, reported at its first error line', () => {
    const r = llamacppAdapter.readLog(fixture('load-failure.log'), 'fail.log');
    expect(r.readyLine).toBeNull();
    expect(r.crashes).toHaveLength(1);
    expect(r.crashes[0].line).toBe(9);
    expect(r.crashes[0].excerpt).toMatch(/^llama_model_load: error loading model: .*nope\.gguf$/);
  });
});

describe('llama.cpp requests', () => {
  it('tokenizes with `content` and counts BOS, as completions prompt_tokens does', () => {
    expect(llamacppTokenizeRequest('m', 'hello')).toEqual({
      path: '/tokenize',
      body: { content: 'hello', add_special: true },
    });
  });
});
