// The README demo's plan: the story on the embedded simulator (SGLang flavour, story MoE profile), four
// configs launched as real child processes on free loopback ports picked now, one of them drifting.
// The story's configurations and workload are exported so the end-to-end verdict test runs the same ones.

import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Expectation, type Plan, type PlanInput, planSchema } from '../plan/schema.js';
import { freeLoopbackPorts } from './free-port.js';

export interface DemoPlanOptions {
  /** argv prefix that runs `benchgate` (e.g. [node, dist/cli/main.js]); `sim ...` is appended. */
  benchgateArgv: string[];
  output: string;
  /** Simulator time scale: larger is faster. */
  timeScale?: number;
  levels?: number[];
  requests?: number;
  outputTokens?: number;
  inputTokens?: number;
  levelDuration?: string;
  /** Interleaved rounds of every config (default DEMO_TRIALS). */
  trials?: number;
}

/** Rounds the demo runs: two paired rounds are the fewest that carry their own run-to-run noise. */
export const DEMO_TRIALS = 2;

export const STORY_MODEL = 'story/moe-0.5t-int4';
export const STORY_DRAFT = 'story/moe-0.5t-eagle3-draft';
export const STORY_PROFILE = 'story-moe-int4-8xpcie';

/**
 * The demo's sweep. Why these levels (see src/report/story-e2e.test.ts for the model's arithmetic): 1 is
 * where spec v2 top-k 1 wins and top-k 4 (host time not hidden, 8-token tree) loses; 16 is the band where
 * both speculative configs amortise the MoE's expert-weight reads; 192 is past the 48 running requests
 * speculation forces, where the baseline's larger batch wins. 128-token prompts and 64-token answers keep
 * prefill from dominating the high level.
 */
export const STORY_LEVELS = [1, 16, 192];
export const STORY_INPUT_TOKENS = 128;
export const STORY_OUTPUT_TOKENS = 64;
/** Fast enough to finish in seconds; slow enough that the baseline's 192 streams (~10,000 SSE events/s) are not bent by a busy host. */
export const STORY_TIME_SCALE = 4;

/** One server configuration of the story: engine flags and environment, and what the checkpoint must see. */
export interface StoryConfig {
  name: string;
  engineArgs: string[];
  env: Record<string, string>;
  expectConfig: Record<string, Expectation>;
}

const eagle = (topk: number, drafts: number) => [
  '--speculative-algorithm',
  'EAGLE3',
  '--speculative-draft-model-path',
  STORY_DRAFT,
  '--speculative-num-steps',
  '3',
  '--speculative-eagle-topk',
  String(topk),
  '--speculative-num-draft-tokens',
  String(drafts),
];

const SPEC_V2_EXPECT: Record<string, Expectation> = {
  'speculative.algorithm': 'EAGLE3',
  'speculative.topk': 1,
  'speculative.spec_v2': true,
  overlap_schedule: true,
};

/** Baseline, EAGLE-3 top-k 4 on spec v1 (overlap off), EAGLE-3 top-k 1 on spec v2 (overlap on). */
export const STORY_CONFIGS: readonly StoryConfig[] = [
  {
    name: 'baseline',
    engineArgs: [],
    env: {},
    expectConfig: { 'speculative.algorithm': { absent: true }, overlap_schedule: true },
  },
  {
    name: 'eagle3-topk4-v1',
    engineArgs: [...eagle(4, 8), '--disable-overlap-schedule'],
    env: {},
    expectConfig: { 'speculative.algorithm': 'EAGLE3', 'speculative.topk': 4, overlap_schedule: false },
  },
  {
    name: 'eagle3-topk1-v2',
    engineArgs: eagle(1, 4),
    env: { SGLANG_ENABLE_SPEC_V2: '1' },
    expectConfig: SPEC_V2_EXPECT,
  },
];

/** The log announces spec v2 with the overlap scheduler, but the server silently runs with overlap off. */
export const STORY_DRIFTED_CONFIG: StoryConfig = {
  name: 'eagle3-topk1-v2-drifted',
  engineArgs: [...eagle(1, 4), '--fault', 'config-drift'],
  env: { SGLANG_ENABLE_SPEC_V2: '1' },
  expectConfig: SPEC_V2_EXPECT,
};

/** `benchgate sim` arguments (after `sim`) for an SGLang-flavoured story server on 8 GPUs. */
export function storyServerSimArgs(o: {
  port: number;
  timeScale: number;
  loadTimeS: number;
  modelPath: string;
  engineArgs: readonly string[];
}): string[] {
  return [
    '--flavor',
    'sglang',
    '--profile',
    STORY_PROFILE,
    '--time-scale',
    String(o.timeScale),
    '--load-time',
    String(o.loadTimeS),
    '--port',
    String(o.port),
    '--model-path',
    o.modelPath,
    '--tp-size',
    '8',
    ...o.engineArgs,
  ];
}

/** `benchgate sim` arguments (after `sim`) for one story config on `port`. */
export function storySimArgs(config: StoryConfig, port: number, timeScale: number): string[] {
  // the story's 10-minute model load, shortened to a second of real time
  return storyServerSimArgs({
    port,
    timeScale,
    loadTimeS: 1,
    modelPath: STORY_MODEL,
    engineArgs: config.engineArgs,
  });
}

export async function buildDemoPlan(o: DemoPlanOptions): Promise<Plan> {
  const all = [...STORY_CONFIGS, STORY_DRIFTED_CONFIG];
  const ports = await freeLoopbackPorts(all.length);
  const timeScale = o.timeScale ?? STORY_TIME_SCALE;
  // each server also writes its engine log to a file, which the spec v2 configs' checkpoint reads (only the
  // lines of the current start count): the drifted server's log claims spec v2 + overlap while it runs without
  const logDir = resolve(o.output, 'story-demo-logs');
  await mkdir(logDir, { recursive: true });
  const configs = all.map((c, i) => {
    const logFile = join(logDir, `${c.name}.log`);
    const specV2 = c.env.SGLANG_ENABLE_SPEC_V2 === '1';
    return {
      name: c.name,
      launch: {
        command: [o.benchgateArgv[0]],
        args: [
          ...o.benchgateArgv.slice(1),
          'sim',
          ...storySimArgs(c, ports[i], timeScale),
          '--log-file',
          logFile,
        ],
        env: c.env,
      },
      url: `http://127.0.0.1:${ports[i]}`,
      log: logFile,
      ready_timeout: '30s',
      stop: { signal: 'SIGTERM' as const, grace: '5s' },
      expect: {
        config: c.expectConfig,
        logs: specV2
          ? [
              {
                path: logFile,
                contains: 'Spec v2 is enabled',
                must_not_contain: 'Overlap scheduler is disabled',
              },
            ]
          : [],
      },
    };
  });
  const input: PlanInput = {
    name: 'story-demo',
    target: { engine: 'sglang', api: 'native' },
    workload: {
      input_tokens: { fixed: o.inputTokens ?? STORY_INPUT_TOKENS },
      output_tokens: { fixed: o.outputTokens ?? STORY_OUTPUT_TOKENS },
      ignore_eos: true,
      seed: 7,
    },
    // Each level ends after `requests` or `duration`, whichever comes first: low levels are time-bound,
    // the top level sends one request per stream (one wave for the baseline, four for the capped configs).
    // Two interleaved rounds (A B C, A B C): a verdict between one-trial runs needs a run-to-run noise
    // estimate the demo does not have, while paired rounds carry their own (docs/verdicts.md).
    load: {
      kind: 'concurrency',
      levels: o.levels ?? STORY_LEVELS,
      requests: o.requests ?? 192,
      duration: o.levelDuration ?? '2s',
      warmup: 0,
      trials: o.trials ?? DEMO_TRIALS,
    },
    output: o.output,
    expect: { config: { tp_size: 8, model: STORY_MODEL }, wait: '10s', smoke: true },
    varies: ['speculative.*', 'overlap_schedule', 'sglang.*'],
    configs,
  };
  return planSchema.parse(input);
}
