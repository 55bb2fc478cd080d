// Reads live configuration, logs and counters from the embedded simulator (sglang and vllm
// flavours) through the adapters, end to end over real HTTP and a real log file.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { type SimulatorHandle, startSimulator } from '../sim/index.js';
import { detectEngine, getAdapter } from './index.js';

let dir: string;
const handles: SimulatorHandle[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-engines-'));
});
afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  await rm(dir, { recursive: true, force: true });
});

async function sim(opts: Parameters<typeof startSimulator>[0]): Promise<SimulatorHandle> {
  // A roofline profile: the fixed profile does not simulate speculative decoding.
  const h = await startSimulator({ profile: 'dense-8b-1gpu', loadTimeS: 0, timeScale: 50, ...opts });
  handles.push(h);
  await (h as SimulatorHandle & { ready?: Promise<unknown> }).ready;
  return h;
}

const SPEC_ARGS = [
  '--model-path',
  '/models/story-moe',
  '--tp-size',
  '8',
  '--speculative-algorithm',
  'EAGLE3',
  '--speculative-draft-model-path',
  '/models/story-eagle3',
  '--speculative-eagle-topk',
  '1',
  '--speculative-num-steps',
  '3',
  '--speculative-num-draft-tokens',
  '4',
];

describe('adapters against the simulator', () => {
  it('sglang flavour with spec v2: detect, live config, log and counters agree', async () => {
    const logFile = join(dir, 'sglang.log');
    const h = await sim({
      flavor: 'sglang',
      engineArgs: SPEC_ARGS,
      env: { SGLANG_ENABLE_SPEC_V2: 'True' },
      logFile,
    });
    const http = createTargetHttp(h.url);
    expect(await detectEngine(http)).toBe('sglang');
    const adapter = getAdapter('sglang');
    const live = await adapter.readLive(http);
    expect(live.facts.tp_size.value).toBe(8);
    expect(live.facts['speculative.algorithm'].value).toBe('EAGLE3');
    expect(live.facts['speculative.topk'].value).toBe(1);
    expect(live.facts['speculative.num_draft_tokens'].value).toBe(4);
    expect(live.facts.overlap_schedule.value).toBe(true);
    expect(live.facts['speculative.spec_v2']).toMatchObject({ value: true, inferred: true });

    const log = adapter.readLog(await readFile(logFile, 'utf8'), logFile);
    expect(log.startMarkerLines).toHaveLength(1);
    expect(log.readyLine).not.toBeNull();
    expect(log.facts['speculative.spec_v2'].value).toBe(true);
    expect(log.facts['speculative.spec_v2'].inferred).toBeUndefined();
    expect(log.facts.tp_size.value).toBe(8);
    expect(log.crashes).toEqual([]);

    const req = adapter.requestFor({
      api: 'native',
      model: 'x',
      prompt: 'hello world',
      maxTokens: 12,
      ignoreEos: true,
      temperature: 0,
      stream: false,
    });
    const gen = await http.request(req.path, { method: 'POST', body: req.body });
    expect(gen.status).toBe(200);
    const counters = adapter.specCounters((await http.request('/metrics')).text);
    expect(counters?.acceptLengthGauge).toBeGreaterThan(1);
    expect(counters?.generationTokens).toBeGreaterThanOrEqual(12);
  });

  it('sglang flavour, spec v1 EAGLE: overlap off and spec v2 off from live and log', async () => {
    const logFile = join(dir, 'sglang-v1.log');
    const h = await sim({ flavor: 'sglang', engineArgs: SPEC_ARGS, env: {}, logFile });
    const adapter = getAdapter('sglang');
    const live = await adapter.readLive(createTargetHttp(h.url));
    expect(live.facts.overlap_schedule.value).toBe(false);
    expect(live.facts['speculative.spec_v2'].value).toBe(false);
    const log = adapter.readLog(await readFile(logFile, 'utf8'), logFile);
    expect(log.facts.overlap_schedule.value).toBe(false);
    expect(log.facts['speculative.spec_v2'].value).toBe(false);
  });

  it('vllm flavour: detect, live config, dev-mode server_info, log and counters', async () => {
    const logFile = join(dir, 'vllm.log');
    const h = await sim({
      flavor: 'vllm',
      engineArgs: [
        '--model',
        '/models/llama',
        '--tensor-parallel-size',
        '2',
        '--max-num-seqs',
        '32',
        '--speculative-config',
        '{"method": "eagle3", "model": "/models/eagle3", "num_speculative_tokens": 3}',
      ],
      env: { VLLM_SERVER_DEV_MODE: '1' },
      logFile,
    });
    const http = createTargetHttp(h.url);
    expect(await detectEngine(http)).toBe('vllm');
    const adapter = getAdapter('vllm');
    const live = await adapter.readLive(http);
    expect(live.facts.engine_version.value).toMatch(/^\d+\.\d+/);
    expect(live.facts.tp_size).toMatchObject({ value: 2, source: 'GET /server_info' });
    expect(live.facts['speculative.algorithm'].value).toBe('EAGLE3');
    expect(live.facts.context_length.value).toBeGreaterThan(0);

    const log = adapter.readLog(await readFile(logFile, 'utf8'), logFile);
    expect(log.startMarkerLines).toHaveLength(1);
    expect(log.readyLine).not.toBeNull();
    expect(log.facts.max_running_requests.value).toBe(32);
    expect(log.facts['speculative.num_steps'].value).toBe(3);

    const req = adapter.requestFor({
      api: 'completions',
      model: String(live.facts.served_model_name.value),
      prompt: 'hi',
      maxTokens: 16,
      ignoreEos: true,
      temperature: 0,
      stream: false,
    });
    expect((await http.request(req.path, { method: 'POST', body: req.body })).status).toBe(200);
    const counters = adapter.specCounters((await http.request('/metrics')).text);
    expect(counters?.drafts).toBeGreaterThan(0);
    expect(counters?.acceptedTokens).toBeLessThanOrEqual(counters?.draftTokens ?? 0);
  });

  it('stale-log fault: two starts in the file, config read from the current one', async () => {
    const logFile = join(dir, 'stale.log');
    await sim({
      flavor: 'sglang',
      engineArgs: SPEC_ARGS,
      env: { SGLANG_ENABLE_SPEC_V2: 'True' },
      logFile,
      faults: ['stale-log'],
    });
    const log = getAdapter('sglang').readLog(await readFile(logFile, 'utf8'), logFile);
    expect(log.startMarkerLines.length).toBe(2);
    expect(log.facts.overlap_schedule.value).toBe(true);
    expect(log.facts.tp_size.value).toBe(8);
  });

  it('crash-on-first-decode fault: the traceback after the last start is reported', async () => {
    const logFile = join(dir, 'crash.log');
    const h = await sim({
      flavor: 'sglang',
      engineArgs: SPEC_ARGS,
      env: {},
      logFile,
      faults: ['crash-on-first-decode'],
    });
    const http = createTargetHttp(h.url, { timeoutMs: 5000 });
    const req = getAdapter('sglang').requestFor({
      api: 'native',
      model: 'x',
      prompt: 'hi',
      maxTokens: 8,
      ignoreEos: true,
      temperature: 0,
      stream: true,
    });
    await http.request(req.path, { method: 'POST', body: req.body });
    const log = getAdapter('sglang').readLog(await readFile(logFile, 'utf8'), logFile);
    expect(log.crashes.length).toBeGreaterThan(0);
    expect(log.crashes.map((c) => c.excerpt).join('\n')).toContain('AttributeError');
  });

  it("openai flavour: detected as the generic 'openai' engine", async () => {
    const h = await sim({ flavor: 'openai', engineArgs: [], env: {} });
    const http = createTargetHttp(h.url);
    expect(await detectEngine(http)).toBe('openai');
    const live = await getAdapter('openai').readLive(http);
    expect(live.facts.served_model_name.value).toBeTruthy();
  });
});
