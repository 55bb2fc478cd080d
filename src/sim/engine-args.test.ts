import { describe, expect, it } from 'vitest';
import { BenchgateError } from '../core/errors.js';
import { deriveServedConfig } from './engine-args.js';
import { BUILTIN_PROFILES } from './profiles.js';

const story = BUILTIN_PROFILES['story-moe-int4-8xpcie'];
const sglang = (argv: string[], env: Record<string, string> = {}) =>
  deriveServedConfig('sglang', story, argv, env);

describe('sglang flags and derivations', () => {
  it('keeps overlap on and the profile default of max running requests without speculative decoding', () => {
    const c = sglang(['--tp-size', '8', '--model-path', 'org/model']);
    expect(c.disableOverlapSchedule).toBe(false);
    expect(c.maxRunningRequests).toBe(story.defaultMaxRunningRequests);
    expect(c.modelPath).toBe('org/model');
    expect(c.warnings).toEqual([]);
  });

  it('turns overlap off for EAGLE without spec v2 and resets max running requests to 48', () => {
    const c = sglang([
      '--speculative-algorithm',
      'EAGLE3',
      '--speculative-eagle-topk',
      '4',
      '--speculative-num-steps',
      '3',
      '--speculative-num-draft-tokens',
      '8',
    ]);
    expect(c.disableOverlapSchedule).toBe(true);
    expect(c.maxRunningRequests).toBe(48);
    expect(c.specNumDraftTokens).toBe(8);
    const texts = c.warnings.map((w) => w.text);
    expect(texts).toContain(
      'Max running requests is reset to 48 for speculative decoding. You can override this by explicitly setting --max-running-requests.',
    );
    expect(texts.some((t) => t.startsWith('Overlap scheduler is disabled when spec v2 is off'))).toBe(true);
  });

  it('keeps an explicit --max-running-requests under speculative decoding', () => {
    expect(
      sglang(['--speculative-algorithm', 'EAGLE', '--max-running-requests', '64']).maxRunningRequests,
    ).toBe(64);
  });

  it('forces num_draft_tokens = num_steps + 1 when top-k is 1, with the engine warning', () => {
    const c = sglang([
      '--speculative-algorithm=EAGLE3',
      '--speculative-eagle-topk',
      '1',
      '--speculative-num-steps',
      '5',
      '--speculative-num-draft-tokens',
      '4',
    ]);
    expect(c.specNumDraftTokens).toBe(6);
    expect(c.warnings.map((w) => w.text)).toContain(
      'speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1',
    );
  });

  it('turns overlap on under SGLANG_ENABLE_SPEC_V2 with top-k 1', () => {
    const c = sglang(['--speculative-algorithm', 'EAGLE3', '--speculative-eagle-topk', '1'], {
      SGLANG_ENABLE_SPEC_V2: 'True',
    });
    expect(c.disableOverlapSchedule).toBe(false);
    expect(c.specV2).toBe(true);
    expect(c.warnings.map((w) => w.text)).toContain(
      'Spec v2 is enabled for eagle/eagle3 speculative decoding and overlap schedule is turned on.',
    );
    expect(c.startError).toBeNull();
  });

  it('refuses spec v2 with top-k > 1 with the engine ValueError text', () => {
    const c = sglang(['--speculative-algorithm', 'EAGLE3', '--speculative-eagle-topk', '4'], {
      SGLANG_ENABLE_SPEC_V2: '1',
    });
    expect(c.startError).toEqual({
      type: 'ValueError',
      message: 'Spec v2 currently only supports topk = 1 for speculative decoding.',
    });
  });

  it('fails on unknown flags and bad values with argparse wording', () => {
    expect(() => sglang(['--tp-size', '8', '--no-such-flag', 'x'])).toThrowError(
      'launch_server.py: error: unrecognized arguments: --no-such-flag x',
    );
    expect(() => sglang(['--tp-size', 'eight'])).toThrowError(
      "argument --tp-size/--tensor-parallel-size: invalid int value: 'eight'",
    );
    expect(() => sglang(['--speculative-algorithm', 'MEDUSA'])).toThrowError(/invalid choice: 'MEDUSA'/);
    expect(() => sglang(['--max-running-requests'])).toThrowError(/expected one argument/);
    try {
      sglang(['--bogus']);
    } catch (e) {
      expect(e).toBeInstanceOf(BenchgateError);
      expect((e as BenchgateError).code).toBe('BG_E_USAGE');
    }
  });
});

describe('vllm flags', () => {
  it('reads --speculative-config JSON, --tensor-parallel-size and --max-num-seqs', () => {
    const c = deriveServedConfig(
      'vllm',
      story,
      [
        'org/model',
        '--tensor-parallel-size',
        '8',
        '--max-num-seqs',
        '64',
        '--speculative-config',
        '{"method":"eagle3","model":"org/draft","num_speculative_tokens":3}',
      ],
      {},
    );
    expect(c.modelPath).toBe('org/model');
    expect(c.tpSize).toBe(8);
    expect(c.maxRunningRequests).toBe(64);
    expect(c.specAlgorithm).toBe('eagle3');
    expect(c.specNumSteps).toBe(3);
    expect(c.specNumDraftTokens).toBe(4);
    expect(c.givenArgs).toMatchObject({ model: 'org/model', tensor_parallel_size: 8, max_num_seqs: 64 });
  });

  it('fails on unknown flags like vllm serve does', () => {
    expect(() => deriveServedConfig('vllm', story, ['--tp-size', '8'], {})).toThrowError(
      'vllm serve: error: unrecognized arguments: --tp-size 8',
    );
  });
});
