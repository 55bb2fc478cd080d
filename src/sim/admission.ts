// Admits one generation request: checks its length against the served context, applies the HTTP
// and stream faults, makes its SimRequest (id, seeded rng, server-side truth) and serves it.

import type { ServerResponse } from 'node:http';
import { monoNowMs } from '../core/clock.js';
import { type Rng, seededRng } from '../core/seeded-random.js';
import { drawStreamFault, generatedLimit, sentHttpError } from './fault-effects.js';
import type { Faults } from './faults.js';
import { serveGeneration } from './generation.js';
import type { GenerationSpec } from './generation-spec.js';
import type { ErrorSender } from './http-util.js';
import type { PrefixCache } from './prefix-cache.js';
import type { SimRequest } from './request.js';
import type { ServedConfig } from './served-config.js';
import type { SimProcess } from './sim-process.js';
import type { TruthLog } from './truth.js';

export interface AdmissionDeps {
  served: ServedConfig;
  faults: Faults;
  /** Draws faults (seeded). */
  faultRng: Rng;
  /** Seeds each request's rng with `seed·1000003 + index`. */
  seed: number;
  process: SimProcess;
  truth: TruthLog;
  sendError: ErrorSender;
  lengthError(contextLength: number, promptTokens: number, maxNewTokens: number): string | null;
  /** Keeps the response so a restart or crash can drop it. */
  track(res: ServerResponse): void;
  /** Called for each request answered in full (engine log lines). */
  onFinished?(req: SimRequest): void;
  /** The engine's prefix cache, null when it has none or it is off. */
  prefixCache: PrefixCache | null;
}

/** A 400 for a bad max-tokens or an over-long request, in the engine's words; true when sent. */
function sentLengthError(d: AdmissionDeps, res: ServerResponse, spec: GenerationSpec): boolean {
  if (!Number.isInteger(spec.maxNewTokens) || spec.maxNewTokens < 1) {
    d.sendError(res, 400, `Expected max tokens to be a positive integer; found ${spec.maxNewTokens}.`);
    return true;
  }
  const message = d.lengthError(d.served.contextLength, spec.promptTokens, spec.maxNewTokens);
  if (message === null) return false;
  d.sendError(res, 400, message);
  return true;
}

export class Admission {
  private readonly d: AdmissionDeps;
  /** Requests admitted since the server started (kept across restarts). */
  private requestIndex = 0;

  constructor(deps: AdmissionDeps) {
    this.d = deps;
  }

  admit(res: ServerResponse, spec: GenerationSpec): void {
    const d = this.d;
    if (sentLengthError(d, res, spec)) return;
    if (sentHttpError(d.faults, d.faultRng, res, d.sendError)) return;
    serveGeneration(res, spec, {
      fault: spec.stream ? drawStreamFault(d.faults, d.faultRng) : null,
      divergeAt: d.served.specAlgorithm ? d.faults.specDivergeAt : null,
      rng: d.faultRng,
      createRequest: (s, onTokens) => this.newRequest(s, onTokens),
      submit: (r) => d.process.scheduler.submit(r),
      abort: (r) => d.process.scheduler.abort(r),
      track: (r) => d.track(r),
      finished: (r, ok, outputIds) => {
        if (!ok) return;
        if (spec.promptIds) d.prefixCache?.insertFinished(spec.promptIds, outputIds);
        d.onFinished?.(r);
        d.process.requestFinished(d.faults.restartAfter);
      },
    });
  }

  private newRequest(spec: GenerationSpec, onTokens: SimRequest['onTokens']): SimRequest {
    const index = ++this.requestIndex;
    const startEpochMs = this.d.process.startEpochMs;
    const promptTokens = Math.max(1, spec.promptTokens);
    const cached =
      spec.promptIds && this.d.prefixCache ? this.d.prefixCache.lookupAndInsert(spec.promptIds) : 0;
    const r: SimRequest = {
      id: `${index.toString(16).padStart(8, '0')}${Math.floor(startEpochMs).toString(16).slice(-8)}`,
      index,
      promptTokens,
      cachedTokens: Math.min(cached, promptTokens - 1),
      maxNewTokens: generatedLimit(this.d.faults, this.d.faultRng, spec.stream, spec.maxNewTokens),
      prefilled: Math.min(cached, promptTokens - 1),
      generated: 0,
      state: 'queued',
      rng: seededRng(this.d.seed * 1_000_003 + index),
      verifyCt: 0,
      acceptedDraftTokens: 0,
      arrivalMs: monoNowMs(),
      arrivalSimS: 0,
      firstTokenSimS: null,
      finishSimS: null,
      chunkWriteMs: [],
      chunkTokens: [],
      onTokens,
    };
    this.d.truth.add(r, spec.api);
    return r;
  }
}
