// Opening a session: everything a run prepares once, in order: the checkpoint gate (its health check
// honours expect.wait, so a loading server is waited for), detection (models, engine, model), the smoke
// request, the tokenizer choice and ONE clock anchor. Nothing is written unless preparation fails after
// the checkpoint passed (then a run directory keeps both). The sweep itself is level-sweeper.ts.

import { destroyAgents } from '../client/stream-request.js';
import { createTargetHttp } from '../client/target-http.js';
import { takeAnchor } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import { silentProgress } from '../load/progress.js';
import { chooseTokenizer, type PromptTokenizer } from '../load/tokenizer.js';
import { capacityCheck } from './capacity-check.js';
import { generationParams } from './generation.js';
import { levelSweeper } from './level-sweeper.js';
import { passGate } from './pass-gate.js';
import { keepFailedPreparation, openSessionStore, type SessionFacts } from './session-store.js';
import type { OpenSessionOptions, Session } from './session-types.js';
import { smoke } from './smoke.js';
import { streamTimeouts } from './target-auth.js';
import { detectTarget, listingOnce } from './target-detect.js';

/** Prepares a session: gate, detection, smoke, tokenizer, anchor. No record is written. */
export async function openSession(opts: OpenSessionOptions): Promise<Session> {
  const { plan, url, headers } = opts;
  const progress = opts.progress ?? silentProgress;
  const timeouts = streamTimeouts(plan);
  const rawHttp = createTargetHttp(url, { headers, timeoutMs: timeouts.connectMs, signal: opts.signal });
  const http = listingOnce(rawHttp);
  const gate = await passGate(opts, progress);
  const { engine, adapter, model } = await detectTarget(
    plan,
    url,
    http,
    gate.checkpoint?.verifiedTarget?.model ?? null,
  );
  const facts: SessionFacts = { ...gate, plan, planPath: opts.planPath ?? null, secrets: opts.secrets };
  const params = generationParams(plan, model);
  let tokenizer: PromptTokenizer;
  try {
    const smokeParams = params({ prompt: 'Say hello.', inputTokens: 3, outputTokens: 2 });
    await smoke({ url, adapter, headers, timeouts, progress, signal: opts.signal }, smokeParams);
    tokenizer = await chooseTokenizer(
      url,
      headers,
      model,
      plan.workload.tokenizer,
      adapter.tokenizeRequest,
      opts.signal,
    );
  } catch (e) {
    // the checkpoint passed: keep its evidence in a run directory with the failure
    if (gate.checkpoint && opts.failureOutDir && e instanceof BenchgateError)
      throw keepFailedPreparation(facts, opts.failureOutDir, takeAnchor(), e);
    throw e;
  }
  if (tokenizer.method === 'approximate')
    progress.note(`benchgate: prompt lengths are approximate (${tokenizer.detail}).`);
  const anchor = takeAnchor();
  const runLevel = levelSweeper({
    plan,
    url,
    headers,
    timeouts,
    http,
    rawHttp,
    adapter,
    params,
    tokenizer,
    anchor,
    progress,
    shard: opts.shard ?? null,
    verifiedTarget: gate.checkpoint?.verifiedTarget ?? null,
  });
  // levels beyond the client's calibrated capacity are noted before any load (benchgate calibrate), once
  const capacity = capacityCheck(plan);
  return {
    plan,
    url,
    engine,
    model,
    anchor,
    checkpoint: gate.checkpoint,
    forced: gate.forced,
    tokenizer,
    openStore: (where) => openSessionStore(facts, where, anchor, tokenizer, capacity),
    runLevel,
    close: destroyAgents,
  };
}
