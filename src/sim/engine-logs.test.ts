import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from './index.js';
import { EAGLE3_TOPK1_ARGS, simulatorsClosedAfterEach } from './testing/fast-sim.js';
import { post } from './testing/sse.js';

const { sim } = simulatorsClosedAfterEach();
const EAGLE = [...EAGLE3_TOPK1_ARGS];

describe('sglang start-up log', () => {
  it('writes the ServerArgs repr line, load lines, Uvicorn and the ready line, in order, to onLog and the log file', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'bg-log-')), 'server.log');
    const { h, lines } = await sim({ logFile, engineArgs: ['--tp-size', '8', '--model-path', 'org/m'] });
    const text = lines.join('\n');
    expect(readFileSync(logFile, 'utf8')).toBe(`${text}\n`);
    expect(lines[0]).toMatch(
      /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] server_args=ServerArgs\(model_path='org\/m', .*tp_size=8, .*disable_overlap_schedule=False, .*speculative_algorithm=None, .*\)$/,
    );
    const order = [
      'Load weight end. elapsed=',
      'max_total_num_tokens=315000, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=256',
      `Uvicorn running on http://127.0.0.1:${h.port} (Press CTRL+C to quit)`,
      'The server is fired up and ready to roll!',
    ].map((s) => lines.findIndex((l) => l.includes(s)));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('logs the spec v1 warnings: max running requests reset and overlap scheduler disabled', async () => {
    const { lines } = await sim({ engineArgs: EAGLE });
    const text = lines.join('\n');
    // server_args.py logs `[time] message`, without level or file (SGLang basicConfig before __post_init__)
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] Max running requests is reset to 48 for speculative decoding\./,
      ),
    );
    expect(text).toContain(
      'Overlap scheduler is disabled when spec v2 is off or using unsupported speculative algorithm. You can set env SGLANG_ENABLE_SPEC_V2=True to enable the experimental overlap scheduler.',
    );
    expect(lines[0]).toContain('disable_overlap_schedule=True');
  });

  it('logs the spec v2 warning when SGLANG_ENABLE_SPEC_V2 is set', async () => {
    const { lines } = await sim({ engineArgs: EAGLE, env: { SGLANG_ENABLE_SPEC_V2: '1' } });
    expect(lines.join('\n')).toContain(
      'Spec v2 is enabled for eagle/eagle3 speculative decoding and overlap schedule is turned on.',
    );
    expect(lines[0]).toContain('disable_overlap_schedule=False');
  });

  it('fails to start with the ValueError traceback for spec v2 with top-k > 1', async () => {
    const lines: string[] = [];
    await expect(
      startSimulator({
        onLog: (l) => lines.push(l),
        engineArgs: ['--speculative-algorithm', 'EAGLE3', '--speculative-eagle-topk', '4'],
        env: { SGLANG_ENABLE_SPEC_V2: 'true' },
      }),
    ).rejects.toThrowError('ValueError: Spec v2 currently only supports topk = 1 for speculative decoding.');
    expect(lines.at(-1)).toBe(
      'ValueError: Spec v2 currently only supports topk = 1 for speculative decoding.',
    );
    expect(lines).toContain('Traceback (most recent call last):');
  });

  it('logs periodic Decode batch lines with the accept length and rate under speculative decoding', async () => {
    const { h, lines } = await sim({ engineArgs: [...EAGLE, '--decode-log-interval', '2'] });
    await post(`${h.url}/generate`, { text: 'a b c', sampling_params: { max_new_tokens: 30 } }).then((r) =>
      r.json(),
    );
    const decode = lines.filter((l) => l.includes('Decode batch,'));
    expect(decode.length).toBeGreaterThan(0);
    expect(decode[0]).toMatch(
      /Decode batch, #running-req: 1, #token: \d+, token usage: \d\.\d\d, accept len: \d\.\d\d, accept rate: \d\.\d\d, cuda graph: True, gen throughput \(token\/s\): [\d.]+, #queue-req: 0$/,
    );
    expect(lines.some((l) => /Prefill batch, #new-seq: 1, #new-token: 3,/.test(l))).toBe(true);
  });
});

describe('vllm start-up log', () => {
  it('writes non-default args, the V1 engine config line with speculative_config, and Application startup complete', async () => {
    const { lines } = await sim({
      flavor: 'vllm',
      engineArgs: [
        'org/m',
        '--tensor-parallel-size',
        '8',
        '--speculative-config',
        '{"method":"eagle3","model":"org/d","num_speculative_tokens":3}',
      ],
    });
    const text = lines.join('\n');
    expect(text).toMatch(
      /non-default args: \{'model': 'org\/m', 'tensor_parallel_size': 8, 'speculative_config': \{'method': 'eagle3', /,
    );
    expect(text).toMatch(
      /Initializing a V1 LLM engine \(v\d+\.\d+\.\d+\) with config: model='org\/m', speculative_config=SpeculativeConfig\(method='eagle3', model='org\/d', num_spec_tokens=3\), .*tensor_parallel_size=8/,
    );
    expect(text).toContain('Application startup complete.');
  });

  it('writes periodic engine stats and SpecDecoding metrics lines while decoding', async () => {
    const { h, lines } = await sim({
      flavor: 'vllm',
      engineArgs: ['--speculative-config', '{"method":"eagle3","model":"org/d","num_speculative_tokens":3}'],
    });
    await fetch(`${h.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', prompt: 'a b', max_tokens: 300 }),
    });
    expect(
      lines.some((l) =>
        /Engine 000: Avg prompt throughput: [\d.]+ tokens\/s, Avg generation throughput: [\d.]+ tokens\/s, Running: \d+ reqs, Waiting: \d+ reqs, GPU KV cache usage: [\d.]+%/.test(
          l,
        ),
      ),
    ).toBe(true);
    expect(
      lines.some((l) =>
        /SpecDecoding metrics: Mean acceptance length: \d\.\d\d, .*Per-position acceptance rate: \d\.\d{3}, \d\.\d{3}, \d\.\d{3}, Avg Draft acceptance rate: [\d.]+%$/.test(
          l,
        ),
      ),
    ).toBe(true);
  });
});

describe('secrets', () => {
  it('never writes the --api-key value to the log, and enforces it on the API', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const { h, lines } = await sim({ engineArgs: ['--api-key', secret] });
    expect(lines.join('\n')).not.toContain(secret);
    expect(lines[0]).toContain("api_key='<redacted>'");
    expect((await fetch(`${h.url}/v1/models`)).status).toBe(401);
    expect(
      (await fetch(`${h.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).status,
    ).toBe(200);
    const vllm = await sim({ flavor: 'vllm', engineArgs: ['--api-key', secret] });
    expect(vllm.lines.join('\n')).not.toContain(secret);
  });
});
