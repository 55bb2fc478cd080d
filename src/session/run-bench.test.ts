import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMiniOpenAi } from '../client/test-support/mini-openai.js';
import type { ScriptedServer } from '../client/test-support/scripted-server.js';
import { BenchgateError } from '../core/errors.js';
import { silentProgress } from '../load/progress.js';
import type { RunSummary } from '../metrics/summary.js';
import { type PlanInput, planSchema } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { runBench } from './run-bench.js';

let srv: ScriptedServer & { generations: () => number };
const SECRET = 'sk-topsecretvalue123456';
const HEADER_SECRET = 'hdr-secret-987654321';

beforeAll(async () => {
  srv = await startMiniOpenAi();
});
afterAll(() => srv.close());

const tmp = () => mkdtempSync(join(tmpdir(), 'bg-bench-'));
const plan = (out: string, over: Partial<PlanInput> = {}) =>
  planSchema.parse({
    name: 'unit',
    target: {
      url: srv.url,
      engine: 'openai',
      api: 'completions',
      headers: { 'x-team-token': HEADER_SECRET },
      api_key_env: 'BG_TEST_KEY',
    },
    workload: { dataset: 'random', input_tokens: { fixed: 12 }, output_tokens: { fixed: 4 }, seed: 3 },
    load: { kind: 'concurrency', levels: [1, 3], requests: 6, warmup: 1 },
    output: out,
    ...over,
  });

describe('runBench', () => {
  it('writes manifest, every record, a file per level, summary.json and summary.csv, with no secret anywhere', async () => {
    const out = tmp();
    const res = await runBench({ plan: plan(out), env: { BG_TEST_KEY: SECRET } });
    expect(res.interrupted).toBe(false);
    const files = readdirSync(res.runDir).sort();
    expect(files).toEqual([
      'level-00.json',
      'level-01.json',
      'manifest.json',
      'requests.jsonl',
      'summary.csv',
      'summary.json',
      'validity.json',
    ]);
    const records = readFileSync(join(res.runDir, 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RequestRecord);
    expect(records).toHaveLength(2 * (6 + 1));
    expect(records.filter((r) => r.warmup)).toHaveLength(2);
    expect(
      records.every((r) => r.error === null && r.outputTokensServer === 4 && r.inputTokensClient === 12),
    ).toBe(true);
    const summary = JSON.parse(readFileSync(join(res.runDir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.levels.map((l) => l.requests.completed)).toEqual([6, 6]);
    expect(summary.incomplete).toBeUndefined();
    const manifest = JSON.parse(readFileSync(join(res.runDir, 'manifest.json'), 'utf8'));
    expect(manifest.tokenizer.method).toBe('server-tokenize');
    expect(manifest.finishedAt).not.toBeNull();
    expect(manifest.plan.target.api_key_env).toBe('BG_TEST_KEY');
    expect(readFileSync(join(res.runDir, 'summary.csv'), 'utf8').trim().split('\n')).toHaveLength(3);
    for (const f of files) {
      const text = readFileSync(join(res.runDir, f), 'utf8');
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(HEADER_SECRET);
    }
    // the key was really sent
    expect(srv.headers.at(-1)?.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('refuses a model the server does not serve, before writing anything', async () => {
    const out = tmp();
    const p = plan(out, { target: { url: srv.url, engine: 'openai', model: 'no-such-model' } });
    await expect(runBench({ plan: p })).rejects.toThrow(/"no-such-model" is not served.*mini-model/);
    expect(readdirSync(out)).toEqual([]);
  });

  it('fails with one clear error when the URL is unreachable', async () => {
    const out = tmp();
    const p = plan(out, { target: { url: 'http://127.0.0.1:1', engine: 'openai' } });
    const err = await runBench({ plan: p }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BenchgateError);
    expect((err as BenchgateError).code).toBe('BG_E_CONNECT');
  });

  it('reports an HTML answer as BG_E_NOT_SSE without creating a run', async () => {
    const html = await startMiniOpenAi({ html: true });
    try {
      const out = tmp();
      const p = plan(out, { target: { url: html.url, engine: 'openai' } });
      const err = await runBench({ plan: p }).catch((e: unknown) => e);
      expect((err as BenchgateError).code).toBe('BG_E_NOT_SSE');
      expect((err as BenchgateError).message).toContain('text/html');
      expect(readdirSync(out)).toEqual([]);
    } finally {
      await html.close();
    }
  });

  it('sends no load when the checkpoint gate fails, and records the override when forced', async () => {
    const out = tmp();
    const before = srv.generations();
    const report = {
      ok: false,
      checkedAt: new Date().toISOString(),
      findings: [
        { id: 'config.tp_size', title: 'tp', status: 'fail' as const, required: true, evidence: [] },
      ],
    };
    const p = plan(out, { target: { url: srv.url, engine: 'openai' } });
    const err = await runBench({ plan: p, beforeLoad: async () => ({ report, verifiedTarget: null }) }).catch(
      (e: unknown) => e,
    );
    expect((err as BenchgateError).code).toBe('BG_E_CHECK_FAILED');
    expect(srv.generations()).toBe(before);
    const forced = await runBench({
      plan: p,
      force: true,
      beforeLoad: async () => ({ report, verifiedTarget: null }),
    });
    const manifest = JSON.parse(readFileSync(join(forced.runDir, 'manifest.json'), 'utf8'));
    expect(manifest.forced).toEqual({ failedFindingIds: ['config.tp_size'] });
    expect(manifest.checkpoint.ok).toBe(false);
  });

  it('marks levels invalid when the drift check says so', async () => {
    const out = tmp();
    const p = plan(out, {
      target: { url: srv.url, engine: 'openai' },
      load: { kind: 'concurrency', levels: [1, 2], requests: 2 },
    });
    const res = await runBench({
      plan: p,
      afterLevel: async (i) =>
        i === 1 ? { valid: false, reasons: ['server restarted'] } : { valid: true, reasons: [] },
    });
    expect(res.summary.levels.map((l) => l.validity.valid)).toEqual([true, false]);
    expect(res.summary.levels[1].validity.reasons).toEqual(['server restarted']);
  });

  it('on interrupt keeps complete records and levels and marks the run incomplete', async () => {
    const out = tmp();
    const p = plan(out, {
      target: { url: srv.url, engine: 'openai' },
      load: { kind: 'concurrency', levels: [2, 4], requests: 300 },
    });
    const ac = new AbortController();
    let seen = 0;
    const progress = { ...silentProgress, record: () => ++seen === 8 && ac.abort() };
    const res = await runBench({ plan: p, signal: ac.signal, progress });
    expect(res.interrupted).toBe(true);
    const summary = JSON.parse(readFileSync(join(res.runDir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.incomplete?.reason).toMatch(/interrupted/);
    expect(summary.levels).toHaveLength(1);
    expect(summary.levels[0].validity.valid).toBe(false);
    expect(existsSync(join(res.runDir, 'level-01.json'))).toBe(false);
    const lines = readFileSync(join(res.runDir, 'requests.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBe(summary.levels[0].requests.completed + summary.levels[0].requests.warmup);
  });
});
