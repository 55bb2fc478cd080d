// The README demo's plan: the story on the embedded simulator (SGLang flavour, story MoE profile), four
// configs launched as real child processes on free loopback ports picked now, one of them drifting.

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
}

const MODEL = 'story/moe-0.5t-int4';
const DRAFT = 'story/moe-0.5t-eagle3-draft';

export async function buildDemoPlan(o: DemoPlanOptions): Promise<Plan> {
  const ports = await freeLoopbackPorts(4);
  const timeScale = o.timeScale ?? 10;
  const sim = (port: number, extra: string[]) => [
    ...o.benchgateArgv.slice(1),
    'sim',
    '--flavor',
    'sglang',
    '--profile',
    'story-moe-int4-8xpcie',
    '--time-scale',
    String(timeScale),
    // the story's 10-minute model load, shortened to a second of real time
    '--load-time',
    '1',
    '--port',
    String(port),
    '--model-path',
    MODEL,
    '--tp-size',
    '8',
    ...extra,
  ];
  const eagle = (topk: number, drafts: number) => [
    '--speculative-algorithm',
    'EAGLE3',
    '--speculative-draft-model-path',
    DRAFT,
    '--speculative-num-steps',
    '3',
    '--speculative-eagle-topk',
    String(topk),
    '--speculative-num-draft-tokens',
    String(drafts),
  ];
  const cfg = (
    name: string,
    port: number,
    args: string[],
    env: Record<string, string>,
    expectConfig: Record<string, Expectation>,
  ) => ({
    name,
    launch: { command: [o.benchgateArgv[0]], args: sim(port, args), env },
    url: `http://127.0.0.1:${port}`,
    ready_timeout: '30s',
    stop: { signal: 'SIGTERM' as const, grace: '5s' },
    expect: { config: expectConfig },
  });
  const input: PlanInput = {
    name: 'story-demo',
    target: { engine: 'sglang', api: 'native' },
    workload: {
      input_tokens: { fixed: o.inputTokens ?? 256 },
      output_tokens: { fixed: o.outputTokens ?? 96 },
      ignore_eos: true,
      seed: 7,
    },
    // Each level ends after `requests` or `duration`, whichever comes first: c=1 is time-bound, c=128 fills one wave.
    load: {
      kind: 'concurrency',
      levels: o.levels ?? [1, 16, 128],
      requests: o.requests ?? 128,
      duration: o.levelDuration ?? '3s',
      warmup: 0,
    },
    output: o.output,
    expect: { config: { tp_size: 8, model: MODEL }, wait: '10s', smoke: true },
    varies: ['speculative.*', 'overlap_schedule', 'sglang.*'],
    configs: [
      cfg(
        'baseline',
        ports[0],
        [],
        {},
        { 'speculative.algorithm': { absent: true }, overlap_schedule: true },
      ),
      cfg(
        'eagle3-topk4-v1',
        ports[1],
        [...eagle(4, 8), '--disable-overlap-schedule'],
        {},
        {
          'speculative.algorithm': 'EAGLE3',
          'speculative.topk': 4,
          overlap_schedule: false,
        },
      ),
      cfg(
        'eagle3-topk1-v2',
        ports[2],
        eagle(1, 4),
        { SGLANG_ENABLE_SPEC_V2: '1' },
        {
          'speculative.algorithm': 'EAGLE3',
          'speculative.topk': 1,
          'speculative.spec_v2': true,
          overlap_schedule: true,
        },
      ),
      // The log announces spec v2 with the overlap scheduler, but the server silently runs with overlap off.
      cfg(
        'eagle3-topk1-v2-drifted',
        ports[3],
        [...eagle(1, 4), '--fault', 'config-drift'],
        { SGLANG_ENABLE_SPEC_V2: '1' },
        {
          'speculative.algorithm': 'EAGLE3',
          'speculative.topk': 1,
          'speculative.spec_v2': true,
          overlap_schedule: true,
        },
      ),
    ],
  };
  return planSchema.parse(input);
}
