// Before a level is sent: which level it is (a plan level or an SLO-search probe), the server waited for
// when the previous level was troubled (a restart mid-run), the level's prompts built (and counted by the
// tokenizer, waited for once more when it stopped answering), and the shape the level runner needs.

import { parseDurationS } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import type { BuiltRequest, EngineAdapter, TargetHttp } from '../engines/types.js';
import { levelKeyOf, levelWords } from '../load/level-label.js';
import type { LevelShape } from '../load/level-runner.js';
import { buildLevelWorkload, type LevelWorkload } from '../load/level-workload.js';
import type { ProgressView } from '../load/progress.js';
import type { Shard } from '../load/shard.js';
import type { PromptTokenizer } from '../load/tokenizer.js';
import type { Plan } from '../plan/schema.js';
import type { LevelKey } from '../records/level-key.js';
import type { ParamsFor } from './generation.js';
import { waitForServer } from './server-wait.js';
import type { RunLevelOptions } from './session-types.js';

/** Prompts built (and tokenized) per level at most; longer levels cycle through them. */
export const MAX_PROMPT_POOL = 2048;

export interface PrepareContext {
  plan: Plan;
  /** Uncached: polled when the server stops answering mid-run. */
  rawHttp: TargetHttp;
  adapter: EngineAdapter;
  params: ParamsFor;
  tokenizer: PromptTokenizer;
  progress: ProgressView;
  shard: Shard | null;
}

export interface PreparedLevel {
  work: LevelWorkload;
  shape: LevelShape;
  /** The level's requests, built from its prompts (same order). */
  built: BuiltRequest[];
  /** Requests the level keeps in flight (connections to open first). */
  inFlight: number;
}

/** The level's value and key: the plan's level `li`, or the probe's. */
function levelOf(plan: Plan, li: number, o: RunLevelOptions): { value: number; level: LevelKey } {
  const value = o.probe ? o.probe.level.value : plan.load.levels[o.trial?.planLevel ?? li];
  if (value === undefined) {
    throw new BenchgateError(
      'BG_E_INTERNAL',
      `level index ${li} is outside the plan's ${plan.load.levels.length} levels.`,
    );
  }
  return { value, level: o.probe?.level ?? levelKeyOf(plan.load, value) };
}

async function buildWorkload(
  c: PrepareContext,
  li: number,
  at: { value: number; level: LevelKey },
  requests: number | null,
  waitServer: () => Promise<unknown>,
): Promise<LevelWorkload> {
  const { plan } = c;
  // Distinct prompts per level, built before the level; beyond MAX_PROMPT_POOL they are reused in turn.
  const poolSize = Math.min(plan.load.warmup + (requests ?? MAX_PROMPT_POOL), MAX_PROMPT_POOL);
  const build = () =>
    buildLevelWorkload({ plan, ...at, levelIndex: li, requests, poolSize, tokenizer: c.tokenizer });
  try {
    return await build();
  } catch (e) {
    // the server's tokenizer stopped answering (a restart while the prompts were counted): wait, once more
    if (!(e instanceof BenchgateError && e.code === 'BG_E_TOKENIZER' && /stopped answering/.test(e.message)))
      throw e;
    await waitServer();
    return build();
  }
}

/** Everything a level needs before its first send; `troubled`: the previous level had failures. */
export async function prepareLevel(
  c: PrepareContext,
  li: number,
  o: RunLevelOptions,
  troubled: boolean,
): Promise<PreparedLevel> {
  const { plan } = c;
  const durationS = plan.load.duration === undefined ? null : parseDurationS(plan.load.duration);
  const requests = o.probe?.requests ?? plan.load.requests ?? (durationS === null ? 100 : null);
  const at = levelOf(plan, li, o);
  // A server that restarted (or died) during the previous level is waited for, up to expect.wait.
  const waitServer = () =>
    waitForServer({
      http: c.rawHttp,
      plan,
      progress: c.progress,
      when: `before level ${levelWords(at.level)}`,
      signal: o.signal,
    });
  if (troubled) await waitServer();
  const work = await buildWorkload(c, li, at, requests, waitServer);
  const key = work.level;
  const shape: LevelShape = {
    levelIndex: li,
    level: key,
    requests: work.requests,
    durationMs: o.probe?.durationMs ?? (durationS === null ? null : durationS * 1000),
    warmup: work.unmeasured,
    arrival: plan.load.arrival,
    burstiness: plan.load.burstiness,
    seed: plan.workload.seed,
    shard: c.shard,
    scheduleMs: work.scheduleMs,
    backoff:
      plan.load.backoff.initial_ms > 0
        ? { initialMs: plan.load.backoff.initial_ms, maxMs: plan.load.backoff.max_ms }
        : null,
    errorStop: { rate: plan.load.error_stop.rate, minRequests: plan.load.error_stop.min_requests },
  };
  const built = work.prompts.map((p) => c.adapter.requestFor(c.params(p)));
  const inFlight = key.kind === 'concurrency' ? key.value : (key.maxConcurrency ?? Math.ceil(key.value));
  return { work, shape, built, inFlight };
}
