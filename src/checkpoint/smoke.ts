// The smoke generation: one streamed request with the run's own parameters (API, model, max tokens,
// ignore_eos, temperature, streaming), built by the engine adapter and sent by the project's client,
// then judged: tokens stream, usage arrives, output length as requested, drafts accepted.

import { performance } from 'node:perf_hooks';
import { streamRequest } from '../client/stream-request.js';
import { scrapeSpecCounters } from '../engines/index.js';
import type {
  AcceptanceSources,
  EngineAdapter,
  GenerationParams,
  SpecCounters,
  TargetHttp,
} from '../engines/types.js';
import type { Plan, TokenLength } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';

export const SMOKE_PROMPT = 'Write one short sentence about the sea.';

/** The output length a run would request: the fixed value, the smallest uniform value, or the rounded mean. */
export function requestedTokens(t: TokenLength): number {
  if ('fixed' in t) return t.fixed;
  if ('uniform' in t) return t.uniform[0];
  return Math.max(1, Math.round(t.normal.mean));
}

export function smokeParams(plan: Plan, model: string): GenerationParams {
  return {
    api: plan.target.api,
    model,
    prompt: SMOKE_PROMPT,
    maxTokens: requestedTokens(plan.workload.output_tokens),
    ignoreEos: plan.workload.ignore_eos ?? plan.workload.dataset === 'random',
    temperature: plan.workload.temperature,
    stream: true,
  };
}

export interface SmokeResult {
  params: GenerationParams;
  path: string;
  record: RequestRecord;
  counters: { before: SpecCounters | null; after: SpecCounters | null };
}

/** Sends the smoke request (and scrapes speculative counters around it when asked). Never throws. */
export async function sendSmoke(opts: {
  http: TargetHttp;
  adapter: EngineAdapter;
  params: GenerationParams;
  headers: Record<string, string>;
  timeoutS: { connect: number; ttft: number; stall: number; total: number };
  withCounters: boolean;
  signal?: AbortSignal;
}): Promise<SmokeResult> {
  const built = opts.adapter.requestFor(opts.params);
  const before = opts.withCounters ? await scrapeSpecCounters(opts.http, opts.adapter) : null;
  const origin = performance.now();
  const record = await streamRequest({
    baseUrl: opts.http.baseUrl,
    request: built,
    headers: opts.headers,
    timeouts: {
      connectMs: opts.timeoutS.connect * 1000,
      ttftMs: opts.timeoutS.ttft * 1000,
      stallMs: opts.timeoutS.stall * 1000,
      totalMs: opts.timeoutS.total * 1000,
    },
    originMs: origin,
    id: 0,
    levelIndex: -1,
    warmup: true,
    requestedOutputTokens: opts.params.maxTokens,
    signal: opts.signal,
  });
  const after = opts.withCounters ? await scrapeSpecCounters(opts.http, opts.adapter) : null;
  return { params: opts.params, path: built.path, record, counters: { before, after } };
}

/**
 * Acceptance length from the request's own verify steps, else from counter deltas; null when unknown.
 * The source names the field or counters it came from, in the engine adapter's words where it has them.
 */
export function acceptanceLength(
  r: SmokeResult,
  sources: AcceptanceSources = {},
): { value: number; source: string } | null {
  const out = r.record.outputTokensServer ?? r.record.outputTokensClient;
  if (r.record.specVerifySteps && r.record.specVerifySteps > 0 && out) {
    const note = sources.verifyStepsNote ? ` (${sources.verifyStepsNote})` : '';
    const source = sources.verifySteps
      ? `${sources.verifySteps} of the smoke request${note}`
      : 'verify steps of the smoke request (meta_info.spec_verify_ct or timings.draft_n_accepted)';
    return { value: out / r.record.specVerifySteps, source };
  }
  const { before, after } = r.counters;
  if (!before || !after) return null;
  const d = (k: keyof SpecCounters) =>
    after[k] !== undefined && before[k] !== undefined ? (after[k] as number) - (before[k] as number) : null;
  const gen = d('generationTokens');
  const verify = d('verifySteps');
  if (gen !== null && verify !== null && verify > 0)
    return {
      value: gen / verify,
      source: sources.counterTokens
        ? `GET /metrics deltas of ${sources.counterTokens}`
        : 'GET /metrics counter deltas (tokens / verify steps)',
    };
  const accepted = d('acceptedTokens');
  const drafts = d('drafts');
  if (accepted !== null && drafts !== null && drafts > 0) {
    return {
      value: 1 + accepted / drafts,
      source: sources.counterAccepted
        ? `GET /metrics deltas, 1 + ${sources.counterAccepted}`
        : 'GET /metrics counter deltas (1 + accepted / drafts)',
    };
  }
  if (after.acceptLengthGauge !== undefined)
    return {
      value: after.acceptLengthGauge,
      source: 'GET /metrics acceptance-length gauge (server-computed)',
    };
  return null;
}
