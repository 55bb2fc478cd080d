// The story's three configurations swept one after the other against the embedded simulator (a child
// process each, the story profile), one run directory each, then compared: what the story test checks for
// behaviour and `npm run bench:story` measures against the performance model (story-model.ts).

import { planSchema } from '../plan/schema.js';
import { compareRuns } from '../report/compare.js';
import type { RunNoise } from '../report/run-noise.js';
import type { Comparison } from '../report/types.js';
import { readRuns } from '../results/read-run.js';
import { runBench } from '../session/run-bench.js';
import {
  STORY_CONFIGS,
  STORY_INPUT_TOKENS,
  STORY_LEVELS,
  STORY_MODEL,
  STORY_OUTPUT_TOKENS,
  STORY_PROFILE,
  STORY_TIME_SCALE,
} from './demo-plan.js';

/** Sweeps every story config into `outDir` and compares them with the baseline first. */
export async function sweepStory(outDir: string, opts: { runNoise?: RunNoise } = {}): Promise<Comparison> {
  const dirs: string[] = [];
  for (const config of STORY_CONFIGS) {
    const plan = planSchema.parse({
      name: config.name,
      target: { engine: 'sglang', api: 'native' },
      workload: {
        input_tokens: { fixed: STORY_INPUT_TOKENS },
        output_tokens: { fixed: STORY_OUTPUT_TOKENS },
        ignore_eos: true,
        seed: 7,
      },
      // low levels end after 2.5 s of real time; the top level is one request per stream
      load: { kind: 'concurrency', levels: STORY_LEVELS, requests: 192, duration: '2.5s', warmup: 0 },
      output: outDir,
    });
    const res = await runBench({
      plan,
      simulator: {
        flavor: 'sglang',
        profile: STORY_PROFILE,
        timeScale: STORY_TIME_SCALE,
        loadTimeS: 0,
        engineArgs: ['--model-path', STORY_MODEL, '--tp-size', '8', ...config.engineArgs],
        env: { ...process.env, ...config.env },
      },
    });
    if (res.interrupted) throw new Error(`the story sweep of ${config.name} was interrupted`);
    dirs.push(res.runDir);
  }
  return compareRuns(await readRuns(dirs), {
    baseline: 'baseline',
    iterations: 1000,
    runNoise: opts.runNoise,
  });
}
