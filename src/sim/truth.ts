// Server-side truth: the last requests as the simulator served them, for GET /_sim/requests (tests
// and bench:client compare the client's measurements with it).

import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { sendJson } from './http-util.js';
import type { SimRequest } from './request.js';

const TRUTH_RING = 2048;

/** Server-side truth for one request, as served at GET /_sim/requests. */
export interface RequestTruth {
  id: string;
  index: number;
  api: string;
  state: string;
  promptTokens: number;
  /** Prompt tokens found in the prefix cache at arrival (not prefilled). */
  cachedTokens: number;
  completionTokens: number;
  verifyCt: number;
  acceptedDraftTokens: number;
  /** Monotonic ms (performance.now() of the simulator process). */
  arrivalMs: number;
  chunkWriteMs: number[];
  chunkTokens: number[];
  /** Simulated seconds since the current simulated process start. */
  arrivalSimS: number;
  firstTokenSimS: number | null;
  finishSimS: number | null;
}

/** Process-level figures sent with the requests. */
export interface TruthHeader {
  processStartEpochMs: number;
  restarts: number;
  phase: string;
  timeScale: number;
}

/** The last 2,048 requests (across restarts) with the API each came through. */
export class TruthLog {
  private readonly requests: SimRequest[] = [];
  private readonly apiOf = new WeakMap<SimRequest, string>();

  add(r: SimRequest, api: string): void {
    this.requests.push(r);
    this.apiOf.set(r, api);
    if (this.requests.length > TRUTH_RING) this.requests.splice(0, this.requests.length - TRUTH_RING);
  }

  send(res: ServerResponse, header: TruthHeader): void {
    const requests: RequestTruth[] = this.requests.map((r) => ({
      id: r.id,
      index: r.index,
      api: this.apiOf.get(r) ?? '',
      state: r.state,
      promptTokens: r.promptTokens,
      cachedTokens: r.cachedTokens,
      completionTokens: r.generated,
      verifyCt: r.verifyCt,
      acceptedDraftTokens: r.acceptedDraftTokens,
      arrivalMs: r.arrivalMs,
      chunkWriteMs: r.chunkWriteMs,
      chunkTokens: r.chunkTokens,
      arrivalSimS: r.arrivalSimS,
      firstTokenSimS: r.firstTokenSimS,
      finishSimS: r.finishSimS,
    }));
    sendJson(res, 200, {
      timeOriginEpochMs: performance.timeOrigin,
      processStartEpochMs: header.processStartEpochMs,
      restarts: header.restarts,
      phase: header.phase,
      timeScale: header.timeScale,
      requests,
    });
  }
}
