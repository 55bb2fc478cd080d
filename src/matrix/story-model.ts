// What the simulator's performance model implies for the story (src/sim/README.md), from its formulas, not
// from a run: in steady decode a config emits B·E tokens per step of decodeStepMs(B) simulated ms, with
// B = min(concurrency, max running) and E the expected tokens per verify step (1 + Σ_i Π_{j<=i}
// acceptProb(j)). The story test checks these directions; `npm run bench:story` sets measured ratios
// beside them.
//
// | concurrency | baseline tok/ms | top-k 4 spec v1      | top-k 1 spec v2      |
// | 1           | 1/7.3   = 0.14  | 3.66/30.1 = 0.12 (-) | 3.12/16.9 = 0.18 (+) |
// | 16          | 16/34.6 = 0.46  | 58.5/76.3 = 0.77 (+) | 50.0/61.4 = 0.81 (+) |
// | 192         | 192/72.6 = 2.64 | 176/103   = 1.71 (-) | 150/73.9  = 2.03 (-) |

import { acceptProb, decodeStepMs, type ModelConfig } from '../sim/perf-model.js';
import { resolveProfile } from '../sim/profiles.js';
import { STORY_INPUT_TOKENS, STORY_OUTPUT_TOKENS, STORY_PROFILE } from './demo-plan.js';

const SPEC_MAX_RUNNING = 48; // sglang resets max_running_requests to 48 under speculative decoding
const BASELINE_MAX_RUNNING = 256; // the story profile's default

const MODEL_CONFIGS: Record<string, { config: ModelConfig; maxRunning: number }> = {
  baseline: { config: { tpSize: 8, overlap: true, spec: null }, maxRunning: BASELINE_MAX_RUNNING },
  'eagle3-topk4-v1': {
    config: { tpSize: 8, overlap: false, spec: { numSteps: 3, topk: 4, numDraftTokens: 8 } },
    maxRunning: SPEC_MAX_RUNNING,
  },
  'eagle3-topk1-v2': {
    config: { tpSize: 8, overlap: true, spec: { numSteps: 3, topk: 1, numDraftTokens: 4 } },
    maxRunning: SPEC_MAX_RUNNING,
  },
};

function modelTokensPerMs(config: ModelConfig, maxRunning: number, concurrency: number): number {
  const p = resolveProfile(STORY_PROFILE);
  const batch = Math.min(concurrency, maxRunning);
  let perStep = 1;
  if (config.spec) {
    let reach = 1;
    for (let i = 0; i < Math.min(config.spec.numSteps, config.spec.numDraftTokens - 1); i++) {
      reach *= acceptProb(p, i, config.spec.topk);
      perStep += reach;
    }
  }
  const contextTokens = batch * (STORY_INPUT_TOKENS + STORY_OUTPUT_TOKENS / 2);
  return (batch * perStep) / decodeStepMs(p, config, batch, contextTokens);
}

/** The model's ratio of a story config's steady decode throughput to the baseline's at one concurrency. */
export function storyModelRatio(name: string, concurrency: number): number {
  const own = MODEL_CONFIGS[name];
  const base = MODEL_CONFIGS.baseline;
  if (!own) throw new Error(`no story config named ${name}`);
  return (
    modelTokensPerMs(own.config, own.maxRunning, concurrency) /
    modelTokensPerMs(base.config, base.maxRunning, concurrency)
  );
}
