// The smoke generation against a real HTTP server streaming like llama-server: a speculative build that
// stops one token past max_tokens warns and names it (the run counts what the server reports), a gross
// overshoot blocks, and drafts accepted in the smoke request are live evidence that the server speculates.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FixtureServer, startFixtureServer } from '../../engines/fixture-server.js';
import { resolvePlan } from '../../plan/load.js';
import type { PlanInput } from '../../plan/schema.js';
import { runCheckpoint } from '../run.js';
import { judgeOutputLength } from './smoke-check.js';

/** A completions stream of `n` one-token events, usage and llama-server timings on the last. */
function stream(n: number, timings: Record<string, number>): string {
  const event = (o: object) => `data: ${JSON.stringify(o)}\n\n`;
  const chunks = Array.from({ length: n }, (_, i) =>
    event({ choices: [{ text: ` t${i}`, index: 0, finish_reason: null }], object: 'text_completion' }),
  );
  const last = event({
    choices: [{ text: '', index: 0, finish_reason: 'length' }],
    object: 'text_completion',
    usage: { completion_tokens: n, prompt_tokens: 9, total_tokens: n + 9 },
    timings: { predicted_n: n, ...timings },
  });
  return `${chunks.join('')}${last}data: [DONE]\n\n`;
}

let server: FixtureServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function check(tokens: number, config: PlanInput['expect'] extends infer E ? E : never) {
  server = await startFixtureServer({
    '/health': { status: 'ok' },
    '/v1/models': { object: 'list', data: [{ id: 'main.gguf', object: 'model', owned_by: 'llamacpp' }] },
    '/props': { build_info: 'b0-unknown', total_slots: 1, default_generation_settings: { n_ctx: 512 } },
    '/v1/completions': {
      contentType: 'text/event-stream',
      body: stream(tokens, { draft_n: 24, draft_n_accepted: 16 }),
    },
  });
  const plan = resolvePlan(
    {
      target: { url: server.url, engine: 'llamacpp', api: 'completions' },
      workload: { output_tokens: { fixed: 32 } },
      expect: config,
      output: join(mkdtempSync(join(tmpdir(), 'bg-smoke-')), 'results'),
    },
    'test plan',
  );
  const { report } = await runCheckpoint({ plan });
  const byId = (id: string) => report.findings.find((f) => f.id === id);
  return { report, byId };
}

describe('smoke output length under speculation', () => {
  it('warns, naming it, when a speculative build returns 33 tokens for max_tokens 32', async () => {
    const { byId } = await check(33, { config: { 'speculative.algorithm': { present: true } } });
    expect(byId('smoke')?.status).toBe('pass');
    expect(byId('smoke.length')).toMatchObject({ status: 'warn', required: false });
    expect(byId('smoke.length')?.found).toMatch(
      /^33 output tokens for max_tokens 32 \(finish_reason length\): 1 token/,
    );
    expect(byId('smoke.acceptance')?.status).toBe('pass');
    // no build, no command line: the drafts the smoke request accepted prove speculation
    expect(byId('config.speculative.algorithm')).toMatchObject({
      status: 'pass',
      found: 'speculating (algorithm not named by the server)',
    });
  });

  it('blocks a gross mismatch (48 tokens for 32)', async () => {
    const { byId } = await check(48, {});
    expect(byId('smoke')?.status).toBe('fail');
    expect(byId('smoke')?.found).toMatch(/48 output tokens, 16 more than max_tokens 32/);
  });

  it('asks which algorithm when only live evidence shows speculation', async () => {
    const { byId } = await check(32, { config: { 'speculative.algorithm': 'DRAFT-SIMPLE' } });
    expect(byId('smoke')?.status).toBe('pass');
    expect(byId('smoke.length')).toBeUndefined();
    expect(byId('config.speculative.algorithm')?.status).toBe('fail');
    expect(byId('config.speculative.algorithm')?.found).toMatch(
      /^unknown \(the server speculates, .*acceptance length 2\.\d\d/,
    );
  });
});

describe('judgeOutputLength', () => {
  const p = (ignoreEos: boolean) => ({ maxTokens: 32, ignoreEos });
  it.each([
    [33, true, 'length', 1, 'warning'],
    [35, true, 'length', 3, 'warning'],
    [36, true, 'length', 3, 'problem'],
    [33, true, 'stop', 1, 'problem'],
    [31, true, 'length', 1, 'warning'],
    [20, true, 'stop', 1, 'problem'],
    [20, false, 'stop', 1, null],
    [33, false, 'length', 1, 'warning'],
  ] as const)(
    '%i tokens (ignore_eos %s, finish %s, allowance %i): %s',
    (tokens, ignoreEos, finish, allow, kind) => {
      const v = judgeOutputLength(tokens, p(ignoreEos), finish, allow);
      expect(kind === null ? v : Object.keys(v)).toEqual(kind === null ? {} : [kind]);
    },
  );
});
