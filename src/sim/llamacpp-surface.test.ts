// The llamacpp flavour reproduces what a real llama-server showed (src/engines/fixtures/llamacpp/), and the
// llama.cpp adapter reads it the way it reads the real server.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { llamacppAdapter } from '../engines/llamacpp.js';
import type { SimulatorHandle, SimulatorOptions } from './api.js';
import { startSimulator } from './index.js';
import { llamacppConfig, parseLlamacppArgv } from './llamacpp-args.js';
import { llamacppLine, llamacppRequestLines } from './llamacpp-logs.js';
import { resolveProfile } from './profiles.js';

const fixtures = join(import.meta.dirname, '..', 'engines', 'fixtures', 'llamacpp');
const fixture = (name: string) => readFileSync(join(fixtures, name), 'utf8');

const handles: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function sim(o: SimulatorOptions) {
  const h = await startSimulator({
    flavor: 'llamacpp',
    profile: 'dense-8b-1gpu',
    timeScale: 1000,
    loadTimeS: 0,
    ...o,
  });
  handles.push(h);
  await h.ready;
  return h;
}

const SPEC_ARGS = [
  '-m',
  'main.gguf',
  '-md',
  'draft.gguf',
  '--spec-type',
  'draft-simple',
  '--metrics',
  '-np',
  '4',
  '-c',
  '2048',
];

/** SSE `data:` payloads of a streamed POST, [DONE] included. */
async function streamEvents(url: string, path: string, body: unknown): Promise<string[]> {
  const res = await fetch(url + path, { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));
}

describe('llamacpp flavour: command line', () => {
  const profile = resolveProfile('fixed');

  it('derives slots, per-slot context and speculation as llama-server does', () => {
    const c = llamacppConfig(profile, SPEC_ARGS);
    expect(c).toMatchObject({
      maxRunningRequests: 4,
      contextLength: 512,
      specAlgorithm: 'draft-simple',
      specNumSteps: 3,
    });
    const mdOnly = llamacppConfig(profile, ['-m', 'main.gguf', '-md', 'draft.gguf']);
    expect(mdOnly.specAlgorithm).toBeNull();
    expect(mdOnly.specDraftModelPath).toBe('draft.gguf');
    expect(llamacppConfig(profile, ['-m', 'x.gguf']).maxRunningRequests).toBe(4);
  });

  it('rejects unknown flags with llama-server wording', () => {
    expect(() => parseLlamacppArgv(['--bogus-flag', '1'])).toThrow('error: invalid argument: --bogus-flag');
    expect(() => parseLlamacppArgv(['--spec-type', 'medusa'])).toThrow(/unknown speculative decoding type/);
  });
});

describe('llamacpp flavour: log lines', () => {
  it('lays lines out exactly as the real server does', () => {
    const real = fixture('start-spec-default.log').split('\n');
    expect(
      llamacppLine(
        3.127,
        'I',
        'cmn',
        'common_param',
        'common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)',
      ),
    ).toBe(real[0]);
    expect(llamacppLine(5.091, 'I', 'srv', 'load_model', "loading model 'main.gguf'")).toBe(real[6]);
    const timing = llamacppRequestLines(29_781.758, 3, 257, {
      promptN: 2,
      promptMs: 2.283,
      predictedN: 8,
      predictedMs: 17.425,
      draftN: 15,
      draftAccepted: 0,
      verifySteps: 7,
    });
    expect(timing[0]).toBe(
      '0.29.781.758 I slot print_timing: id  3 | task 257 | prompt eval time =       2.28 ms /     2 tokens (    1.14 ms per token,   876.04 tokens per second)',
    );
    expect(timing[3]).toBe(
      '0.29.781.758 I slot print_timing: id  3 | task 257 | draft acceptance = 0.00000 (    0 accepted /    15 generated), mean len =  1.00',
    );
  });
});

describe('llamacpp flavour surfaces', () => {
  it('identifies as llama.cpp: Server header, /props, /slots, /v1/models owned_by llamacpp', async () => {
    const h = await sim({ engineArgs: SPEC_ARGS });
    const health = await fetch(`${h.url}/health`);
    expect(health.headers.get('server')).toBe('llama.cpp');
    expect(await health.json()).toEqual({ status: 'ok' });
    const http = createTargetHttp(h.url);
    expect(await llamacppAdapter.detect(http)).toBe(true);
    const { facts } = await llamacppAdapter.readLive(http);
    expect(facts.engine.value).toBe('llamacpp');
    expect(facts.context_length.value).toBe(512);
    expect(facts.max_running_requests.value).toBe(4);
    expect(facts['llamacpp.speculative'].value).toBe(true);
    expect(facts['llamacpp.params.speculative.types']).toBeUndefined();
    const models = (await (await fetch(`${h.url}/v1/models`)).json()) as {
      data: { id: string; owned_by: string }[];
    };
    expect(models.data[0]).toMatchObject({ id: 'main.gguf', owned_by: 'llamacpp' });
  });

  it('without a draft model /slots says speculative false and /metrics needs --metrics', async () => {
    const h = await sim({ engineArgs: ['-m', 'main.gguf'] });
    const { facts } = await llamacppAdapter.readLive(createTargetHttp(h.url));
    expect(facts['speculative.algorithm'].value).toBeNull();
    const metrics = await fetch(`${h.url}/metrics`);
    expect(metrics.status).toBe(501);
  });

  it('/tokenize reads content (prompt answers no tokens) and add_special counts BOS like prompt_tokens', async () => {
    const h = await sim({ engineArgs: SPEC_ARGS });
    const post = async (body: unknown) =>
      (
        (await (await fetch(`${h.url}/tokenize`, { method: 'POST', body: JSON.stringify(body) })).json()) as {
          tokens: number[];
        }
      ).tokens;
    expect(await post({ prompt: 'the city of music' })).toEqual([]);
    const withBos = await post({ content: 'the city of music', add_special: true });
    expect(withBos[0]).toBe(1);
    const events = await streamEvents(h.url, '/v1/completions', {
      prompt: 'the city of music',
      max_tokens: 4,
      stream: true,
    });
    const last = JSON.parse(events[events.length - 2]) as { usage: { prompt_tokens: number } };
    expect(last.usage.prompt_tokens).toBe(withBos.length);
  });

  it('completions stream: one event per token, a final event with usage and timings (draft counts), [DONE]', async () => {
    const h = await sim({ engineArgs: SPEC_ARGS });
    const events = await streamEvents(h.url, '/v1/completions', {
      prompt: 'hello world',
      max_tokens: 16,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(events[events.length - 1]).toBe('[DONE]');
    const parsed = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(parsed).toHaveLength(17);
    const real = JSON.parse(fixture('completions-stream-spec.txt').split('\n\n')[0].slice(6));
    expect(Object.keys(parsed[0]).sort()).toEqual(Object.keys(real).sort());
    const last = parsed[16];
    expect(last.choices[0]).toMatchObject({ text: '', finish_reason: 'length' });
    expect(last.usage.completion_tokens).toBe(16);
    expect(last.timings.predicted_n).toBe(16);
    expect(last.timings.draft_n).toBeGreaterThan(0);
    expect(last.timings.draft_n_accepted).toBeGreaterThanOrEqual(0);
    expect(last.system_fingerprint).toMatch(/^b\d+-[0-9a-f]+$/);
  });

  it('chat stream: role event with content null, empty-delta finish, separate choices:[] usage event', async () => {
    const h = await sim({ engineArgs: SPEC_ARGS });
    const events = await streamEvents(h.url, '/v1/chat/completions', {
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 8,
      stream: true,
      stream_options: { include_usage: true },
    });
    const parsed = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(parsed[0].choices[0].delta).toEqual({ role: 'assistant', content: null });
    expect(parsed).toHaveLength(1 + 8 + 2);
    expect(parsed[9].choices[0]).toEqual({ finish_reason: 'length', index: 0, delta: {} });
    expect(parsed[10].choices).toEqual([]);
    expect(parsed[10].usage.completion_tokens).toBe(8);
    expect(parsed[10].timings.draft_n).toBeGreaterThan(0);
  });

  it('/metrics carries llamacpp: speculative counters the adapter reads, and the log the adapter parses', async () => {
    const lines: string[] = [];
    const h = await sim({ engineArgs: SPEC_ARGS, onLog: (l) => lines.push(l) });
    await streamEvents(h.url, '/v1/completions', { prompt: 'hello', max_tokens: 32, stream: true });
    const text = await (await fetch(`${h.url}/metrics`)).text();
    const c = llamacppAdapter.specCounters(text);
    expect(c?.drafts).toBeGreaterThan(0);
    expect(c?.draftTokens).toBe((c?.drafts ?? 0) * 3);
    expect(c?.acceptedTokensPerPosition).toHaveLength(3);
    const log = llamacppAdapter.readLog(lines.join('\n'), 'sim.log');
    expect(log.startMarkerLines).toEqual([1]);
    expect(log.readyLine).not.toBeNull();
    expect(log.facts['speculative.draft_model'].value).toBe('draft.gguf');
    expect(log.facts.context_length.value).toBe(512);
    expect(log.facts['llamacpp.log_draft_requests'].value).toBe(1);
  });
});

describe('llamacpp flavour: stale log', () => {
  it('writes an earlier start of the other configuration before the current one', async () => {
    const lines: string[] = [];
    await sim({ engineArgs: ['-m', 'main.gguf'], faults: ['stale-log'], onLog: (l) => lines.push(l) });
    const log = llamacppAdapter.readLog(lines.join('\n'), 'sim.log');
    expect(log.startMarkerLines).toHaveLength(2);
    expect(lines.some((l) => l.includes("loading draft model 'draft.gguf'"))).toBe(true);
    expect(log.facts['speculative.draft_model']).toBeUndefined();
  });
});
