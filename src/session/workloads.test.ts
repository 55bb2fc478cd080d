// Each workload kind and the SLO search, run from the example plans against the embedded simulator
// (time-scaled, few requests).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentProgress } from '../load/progress.js';
import { withholdUnsupported } from '../metrics/tail-samples.js';
import { loadPlanFile } from '../plan/load.js';
import { levelLabel, levelWords } from '../records/level-key.js';
import type { RequestRecord } from '../records/request-record.js';
import { compareRuns } from '../report/compare.js';
import { renderHtml } from '../report/render-html.js';
import { renderMarkdown } from '../report/render-markdown.js';
import { renderText } from '../report/render-text.js';
import { readRun } from '../results/read-run.js';
import type { RequestTruth } from '../sim/simulator.js';
import { simulatorsClosedAfterEach } from '../sim/testing/fast-sim.js';
import { runBench } from './run-bench.js';
import { smallConcurrencySearch } from './test-support/slo-search-plan.js';

const examples = join(import.meta.dirname, '..', '..', 'examples');
const run = async (
  file: string,
  over: (p: Awaited<ReturnType<typeof loadPlanFile>>) => void = () => {},
  timeScale = 1000,
) => {
  const plan = await loadPlanFile(join(examples, file));
  plan.output = mkdtempSync(join(tmpdir(), 'bg-wl-'));
  over(plan);
  const notes: string[] = [];
  const started: string[] = [];
  const res = await runBench({
    plan,
    simulator: { timeScale },
    simulatorInProcess: true,
    progress: {
      ...silentProgress,
      note: (s: string) => notes.push(s),
      levelStarted: (i, n, label, _t, _d, unit = 'level') => started.push(`${unit} ${i + 1}/${n} ${label}`),
    },
  });
  const records = readFileSync(join(res.runDir, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RequestRecord);
  return { res, notes, records, started };
};

describe('workload kinds against the simulator', () => {
  it('sharegpt: asks for the recorded reply lengths', async () => {
    const { res, records } = await run('workload-sharegpt.yaml', (p) => {
      p.load.levels = [2];
      p.load.requests = 6;
    });
    expect(res.summary.levels).toHaveLength(1);
    expect(new Set(records.map((r) => r.requestedOutputTokens)).size).toBeGreaterThan(1);
    expect(records.every((r) => r.error === null)).toBe(true);
  });

  it('shared_prefix: primes unmeasured, then reports configured and observed hit rates side by side', async () => {
    const { res, notes, records } = await run('workload-shared-prefix.yaml');
    expect(records.filter((r) => r.warmup)).toHaveLength(4);
    const hit = JSON.parse(readFileSync(join(res.runDir, 'prefix-cache-level-00.json'), 'utf8'));
    expect(hit.configured).toBeGreaterThan(0.85);
    expect(hit.observed).toBeGreaterThan(0.85);
    expect(hit.reporting).toBe(16);
    expect(notes.some((n) => /configured 8\d\.\d%, observed 8\d\.\d%/.test(n))).toBe(true);
  });

  it('trace: replays every request of the trace at each speed factor, open loop', async () => {
    const { res, records } = await run('workload-trace.yaml');
    expect(res.summary.levels).toHaveLength(2);
    const [slow, fast] = res.summary.levels.map((l) => l.level.value);
    expect(fast).toBeCloseTo(slow * 2, 1);
    // labelled by the speed factor the plan gave, the offered rate beside it (issue 24 item 14)
    expect(res.summary.levels.map((l) => l.level.speedFactor)).toEqual([1, 2]);
    expect(levelLabel(res.summary.levels[1].level)).toBe(`×2 (${fast} req/s)`);
    expect(levelWords(res.summary.levels[0].level)).toBe(`trace ×1 (${slow} req/s)`);
    expect(records.filter((r) => r.levelIndex === 0)).toHaveLength(24);
    const lens = records.filter((r) => r.levelIndex === 0).map((r) => r.requestedOutputTokens);
    expect(Math.min(...lens)).toBeGreaterThanOrEqual(4);
  });
});

describe('slo_search against the simulator', () => {
  it('returns a concurrency and the probes that bracket it', async () => {
    // time scale 10: one 512-token prefill is ~16 ms, so queueing at 16 in flight breaks a 45 ms TTFT
    const { res, notes, started } = await run('slo-search.yaml', smallConcurrencySearch, 10);
    const s = JSON.parse(readFileSync(join(res.runDir, 'slo-search.json'), 'utf8'));
    expect(res.summary.levels).toHaveLength(s.probes.length);
    expect(res.summary.levels.map((l) => l.level.value)).toEqual(
      s.probes.map((p: { value: number }) => p.value),
    );
    expect(s.slo).toEqual({ ttft_ms: 45 });
    expect(s.firstFail).not.toBeNull();
    if (s.best !== null) expect(s.best).toBeLessThan(s.firstFail);
    expect(
      notes.some((n) =>
        n.includes('slo_search: highest concurrency sustained with 90% of requests meeting the SLOs'),
      ),
    ).toBe(true);
    // each probe counts against max_probes, never "level 11/3" (issue 24 item 14)
    const max =
      res.summary.levels.length > 0
        ? JSON.parse(readFileSync(join(res.runDir, 'manifest.json'), 'utf8')).plan.load.slo_search.max_probes
        : 0;
    expect(started).toEqual(res.summary.levels.map((l, i) => `probe ${i + 1}/${max} ${levelWords(l.level)}`));
  });

  it('fills the SLOs from a named MLPerf preset', async () => {
    const { res } = await run('slo-search.yaml', (p) => {
      p.target.url = undefined;
      p.load.slo_search = {
        ...(p.load.slo_search as NonNullable<typeof p.load.slo_search>),
        share: 0.5, // 13 requests per probe
        start: 64,
        max: 64,
      };
    });
    const s = JSON.parse(readFileSync(join(res.runDir, 'slo-search.json'), 'utf8'));
    expect(s).toMatchObject({ preset: 'mlperf-llama2-70b-server', slo: { ttft_ms: 2000, tpot_ms: 200 } });
    expect(s.probes[0].value).toBe(64);
  });
});

describe('server telemetry', () => {
  it('samples the running/waiting requests and KV-cache usage of every level into the run directory', async () => {
    const { res } = await run('workload-shared-prefix.yaml');
    const t = JSON.parse(readFileSync(join(res.runDir, 'telemetry-level-00.json'), 'utf8'));
    expect(t.sources).toMatchObject({
      running: 'sglang:num_running_reqs',
      waiting: 'sglang:num_queue_reqs',
      kvCacheUsage: 'sglang:token_usage',
    });
    expect(t.samples.length).toBeGreaterThanOrEqual(2);
    expect(
      t.samples.every((s: { values: { running: unknown } }) => typeof s.values.running === 'number'),
    ).toBe(true);
  });
});

describe('multi_turn against the simulator', () => {
  const fast = simulatorsClosedAfterEach();
  const conversation = async (sim: { flavor?: 'llamacpp'; engineArgs?: string[] }, users: number) => {
    const { h } = await fast.sim(sim);
    const { res, records } = await run('workload-multi-turn.yaml', (p) => {
      p.target.url = h.url;
      p.load.levels = [users];
      p.load.requests = users * 8;
      p.workload.input_tokens = { fixed: 64 };
      p.workload.output_tokens = { fixed: 16 };
      p.workload.multi_turn = { turns: 4, think_time_ms: { uniform: [20, 40] } };
    });
    const truth = (await (await fetch(`${h.url}/_sim/requests`)).json()) as { requests: RequestTruth[] };
    return { res, records: records.filter((r) => !r.warmup), truth: truth.requests };
  };

  it('sends each turn the whole history, the replies received included, and reports TTFT and history by turn', async () => {
    // llama-server reports usage.prompt_tokens_details.cached_tokens on chat streams
    const { res, records } = await conversation({ flavor: 'llamacpp' }, 2);
    expect(records).toHaveLength(16);
    expect(records.every((r) => r.error === null)).toBe(true);
    const byConversation = new Map<string | undefined, RequestRecord[]>();
    for (const r of records)
      byConversation.set(r.conversationId, [...(byConversation.get(r.conversationId) ?? []), r]);
    // 16 turns shared by 2 users in closed loop: whole conversations, then the last ones cut by the budget
    expect(byConversation.size).toBeGreaterThanOrEqual(4);
    for (const turns of byConversation.values()) {
      turns.sort((a, b) => (a.turn ?? 0) - (b.turn ?? 0));
      expect(turns.map((r) => r.turn)).toEqual([1, 2, 3, 4].slice(0, turns.length));
      expect(turns[0].historyTokens).toBe(64);
      for (let k = 1; k < turns.length; k++) {
        const [prev, cur] = [turns[k - 1], turns[k]];
        // history grows by the previous reply (server's count) and the new 64-token message
        expect(cur.historyTokens).toBe((prev.historyTokens ?? 0) + (prev.outputTokensServer ?? 0) + 64);
        // the server found the previous prompt AND the previous reply in its cache: the reply went back verbatim
        expect(cur.cachedInputTokens).toBe((prev.inputTokensServer ?? 0) + (prev.outputTokensServer ?? 0));
        // think time is scheduling: due after the reply, never sent before it is due
        expect(cur.scheduledMs - prev.endMs).toBeGreaterThanOrEqual(20);
        expect(cur.sentMs).toBeGreaterThanOrEqual(cur.scheduledMs);
      }
    }
    const perTurn = res.summary.levels[0].multiTurn ?? [];
    expect(perTurn.map((t) => t.turn)).toEqual([1, 2, 3, 4]);
    expect(perTurn.reduce((n, t) => n + t.completed, 0)).toBe(16);
    expect(perTurn.every((t) => t.completed > 0 && t.ttftMs?.count === t.completed)).toBe(true);
    const history = perTurn.map((t) => t.historyTokens?.mean ?? 0);
    expect(history).toEqual([64, 64 + 16 + 64, 64 + 2 * (16 + 64), 64 + 3 * (16 + 64)]);
    // a first turn shares only the template's start (BOS, the user tag) with anything cached, and now and
    // then a first word or two with another conversation's opening (each run draws fresh random words)
    const firstTurns = records.filter((r) => r.turn === 1).map((r) => r.cachedInputTokens ?? -1);
    expect(
      firstTurns.every((n) => n >= 2 && n <= 4),
      `first turns' cached tokens: ${firstTurns}`,
    ).toBe(true);
    expect(perTurn[3].cachedShare).toBeGreaterThan(0.7);
    const level = JSON.parse(readFileSync(join(res.runDir, 'level-00.json'), 'utf8'));
    // the file withholds what the samples cannot support (4 turns of a few requests each: null, with counts)
    expect(level.multiTurn).toEqual(withholdUnsupported(perTurn));
    // the report shows the per-turn table in every format that has tables
    const cmp = compareRuns([await readRun(res.runDir)]);
    const text = renderText(cmp, { color: false });
    expect(text).toMatch(/Multi-turn: TTFT and history length by turn/);
    expect(text).toMatch(/^\s+4\s+\d+\s+0\s+304\s/m);
    expect(renderMarkdown(cmp)).toMatch(/^\| 2 \| \d+ \| 0 \| 144 \| /m);
    expect(renderHtml(cmp)).toContain('id="multi-turn"');
  });

  it('refuses an explicit worker count above 1 for a conversation (a turn needs the reply, in one thread)', async () => {
    const { h } = await fast.sim({});
    await expect(
      run('workload-multi-turn.yaml', (p) => {
        p.target.url = h.url;
        p.load.requests = 4;
        p.load.workers = 2;
      }),
    ).rejects.toThrow(/multi_turn runs in one thread, but load.workers \(or --workers\) is 2/);
  });

  it('later turns reach their first token sooner with the prefix cache than without it (simulated time)', async () => {
    const simTtftByTurn = async (engineArgs: string[]) => {
      const { records, truth } = await conversation({ engineArgs }, 1);
      // one user: the level's requests are the simulator's last ones, in order
      const mine = truth.slice(-records.length);
      expect(mine.map((t) => t.promptTokens)).toEqual(records.map((r) => r.inputTokensServer));
      return records.map((r, i) => ({
        turn: r.turn,
        s: (mine[i].firstTokenSimS ?? 0) - mine[i].arrivalSimS,
      }));
    };
    const cached = await simTtftByTurn([]);
    const uncached = await simTtftByTurn(['--disable-radix-cache']);
    const turn4 = (xs: { turn?: number; s: number }[]) => xs.filter((x) => x.turn === 4).map((x) => x.s);
    const turn1 = (xs: { turn?: number; s: number }[]) => xs.filter((x) => x.turn === 1).map((x) => x.s);
    // without a cache the 4th turn prefills its whole history (TTFT grows turn by turn); with it, only
    // the new message, so TTFT stays at the first turn's
    expect(Math.min(...turn4(uncached))).toBeGreaterThan(Math.max(...turn1(uncached)) * 1.2);
    expect(Math.max(...turn4(cached))).toBeLessThan(Math.min(...turn1(cached)) * 1.05);
    expect(Math.max(...turn4(cached))).toBeLessThan(Math.min(...turn4(uncached)));
  });
});
