import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { sglangAdapter } from '../engines/sglang.js';
import { compareLossless, type LosslessAnswers, losslessLines } from '../metrics/lossless.js';
import { EAGLE3_TOPK1_ARGS, simulatorsClosedAfterEach } from '../sim/testing/fast-sim.js';
import { collectLosslessAnswers } from './lossless.js';
import { losslessPrompts } from './lossless-prompts.js';

const { sim } = simulatorsClosedAfterEach();
const settings = { prompts: 6, seed: 3, maxTokens: 20 };

async function answersOf(
  engineArgs: readonly string[],
  faults: string[],
  api: 'native' | 'completions' | 'chat',
) {
  const { h } = await sim({ engineArgs: [...engineArgs], faults });
  return collectLosslessAnswers({
    http: createTargetHttp(h.url),
    adapter: sglangAdapter,
    api,
    model: 'default',
    settings,
  });
}

const compare = (baseline: LosslessAnswers, candidate: LosslessAnswers) =>
  compareLossless({
    baseline: { name: 'baseline', answers: baseline },
    candidate: { name: 'eagle3', answers: candidate },
    lateShare: 0.5,
  });

describe('lossless check against simulated servers', () => {
  it('reads token ids from native /generate: a clean speculative server is identical, a spec-diverge one diverges early', async () => {
    const baseline = await answersOf([], [], 'native');
    expect(baseline.answers).toHaveLength(6);
    expect(baseline.answers.every((a) => a.error === null && a.ids?.length === 20)).toBe(true);
    expect(compare(baseline, await answersOf(EAGLE3_TOPK1_ARGS, [], 'native'))).toMatchObject({
      verdict: 'identical',
      summary: 'identical on 6 of 6 prompts',
    });
    const broken = compare(baseline, await answersOf(EAGLE3_TOPK1_ARGS, ['spec-diverge=4'], 'native'));
    expect(broken.verdict).toBe('diverges-early');
    expect(broken.prompts.every((p) => p.unit === 'tokens' && p.divergeAt === 4)).toBe(true);
    const lines = losslessLines(broken).join('\n');
    expect(lines).toContain('diverges early on 6 of 6 prompts (earliest at token 4 of 20, prompt 1)');
    expect(lines).toContain(JSON.stringify(losslessPrompts(6, 3)[0]));
    expect(broken.prompts[0].excerpt!.baseline).not.toBe(broken.prompts[0].excerpt!.candidate);
  });

  it('compares the text when the API gives no ids, and a late divergence is not a failure', async () => {
    const baseline = await answersOf([], [], 'completions');
    expect(baseline.answers[0].ids).toBeNull();
    const late = compare(baseline, await answersOf(EAGLE3_TOPK1_ARGS, ['spec-diverge=15'], 'completions'));
    expect(late.verdict).toBe('diverges-late');
    expect(late.prompts[0].unit).toBe('characters');
  });

  it('reads the top-2 logprobs of every API and names the baseline margin at the divergence', async () => {
    for (const api of ['native', 'completions', 'chat'] as const) {
      const baseline = await answersOf([], [], api);
      const lps = baseline.answers[0].logprobs;
      expect(lps, api).toHaveLength(20);
      expect(lps!.every((p) => p.top2 !== null && p.top1 >= p.top2 && p.top1 <= 0)).toBe(true);
      // OpenAI APIs give the token text, which spells the answer; native gives ids
      if (api === 'native') expect(lps![0].token).toBeNull();
      else expect(lps!.map((p) => p.token).join('')).toBe(baseline.answers[0].text);
      const broken = compare(baseline, await answersOf(EAGLE3_TOPK1_ARGS, ['spec-diverge=4'], api));
      expect(broken.verdict, api).toBe('diverges-early');
      const m = broken.prompts[0].margin;
      expect(m?.nats, api).toBeCloseTo(lps![4].top1 - (lps![4].top2 as number), 9);
      expect(broken.summary).toContain("the baseline's top-1/top-2 margin at the first divergent token is");
    }
  });

  it('asks again without logprobs when the engine refuses them, and keeps the answer', async () => {
    const asked: unknown[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const doc = JSON.parse(body) as Record<string, unknown>;
        asked.push(doc.logprobs ?? null);
        res.writeHead(doc.logprobs === undefined ? 200 : 422, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            doc.logprobs === undefined
              ? { choices: [{ index: 0, text: ' fine', finish_reason: 'length' }] }
              : { error: 'logprobs is not supported' },
          ),
        );
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const { port } = server.address() as AddressInfo;
      const got = await collectLosslessAnswers({
        http: createTargetHttp(`http://127.0.0.1:${port}`),
        adapter: sglangAdapter,
        api: 'completions',
        model: 'default',
        settings: { ...settings, prompts: 1 },
      });
      expect(asked).toEqual([2, null]);
      expect(got.answers[0]).toMatchObject({ text: ' fine', logprobs: null, error: null });
    } finally {
      server.close();
    }
  });

  it('an unreachable server gives unknown answers, never identical', async () => {
    const baseline = await answersOf([], [], 'native');
    const none = await collectLosslessAnswers({
      http: createTargetHttp('http://127.0.0.1:9'),
      adapter: sglangAdapter,
      api: 'native',
      model: 'default',
      settings,
      timeoutMs: 2000,
    });
    const cmp = compare(baseline, none);
    expect(cmp.verdict).toBe('unknown');
    expect(cmp.summary).toMatch(/^unknown on 6 of 6 prompts \(answer unread: /);
  });
});
