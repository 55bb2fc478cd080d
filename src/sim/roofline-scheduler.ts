// The single scheduler loop of the roofline profiles: continuous batching in discrete steps.
// Each step is either a prefill chunk (new requests admitted under max running requests and KV
// capacity) or one decode/verify step for every running request; its duration comes from the
// performance model, and its tokens are delivered when the step's (time-scaled) duration has passed.

import { performance } from 'node:perf_hooks';
import type { ModelConfig } from './perf-model.js';
import { decodeStepMs, drawAccepted, prefillStepMs } from './perf-model.js';
import type { SimProfile } from './profiles.js';
import type { Scheduler, SchedulerCounters, SimRequest } from './request.js';
import { drawTokenIds, newCounters } from './request.js';
import { VOCAB_SIZE } from './tokenizer.js';

export interface RooflineOptions {
  profile: SimProfile;
  model: ModelConfig;
  maxRunningRequests: number;
  kvCapacityTokens: number;
  chunkedPrefillSize: number;
  timeScale: number;
  /** Decode steps between `Decode batch.` log lines (sglang decode_log_interval). */
  decodeLogInterval: number;
  log: (kind: 'prefill' | 'decode', fields: Record<string, number>) => void;
  /** Called before the first decode step; returning false stops the loop (crash fault). */
  beforeFirstDecode?: () => boolean;
}

export class RooflineScheduler implements Scheduler {
  readonly counters: SchedulerCounters = newCounters();
  private readonly o: RooflineOptions;
  private queue: SimRequest[] = [];
  private running: SimRequest[] = [];
  private kvReserved = 0;
  /** Queued requests aborted since the last sweep (so a step skips scanning a long queue). */
  private queuedAborts = 0;
  private kvUsed = 0;
  private simS = 0;
  private busy = false;
  private stopped = false;
  private idleSinceMs = performance.now();
  private nextRealMs = 0;
  private firstDecodeDone = false;
  private logWindowTokens = 0;
  private logWindowStartS = 0;
  private logWindowVerify = 0;
  private logWindowAccepted = 0;

  constructor(o: RooflineOptions) {
    this.o = o;
  }

  submit(req: SimRequest): void {
    req.arrivalSimS = this.simNowS();
    this.queue.push(req);
    if (!this.busy && !this.stopped) {
      this.busy = true;
      const now = performance.now();
      this.simS += ((now - this.idleSinceMs) * this.o.timeScale) / 1000;
      req.arrivalSimS = this.simS;
      this.nextRealMs = now;
      setImmediate(() => this.step());
    }
  }

  abort(req: SimRequest): void {
    if (req.state === 'queued') this.queuedAborts++;
    if (req.state === 'queued' || req.state === 'running') req.state = 'aborted';
  }

  numRunning(): number {
    return this.running.length;
  }

  numQueued(): number {
    return this.queue.length;
  }

  kvUsedTokens(): number {
    return this.kvUsed;
  }

  simNowS(): number {
    if (this.busy) return this.simS;
    return this.simS + ((performance.now() - this.idleSinceMs) * this.o.timeScale) / 1000;
  }

  stop(): void {
    this.stopped = true;
  }

  private reserveFor(r: SimRequest): number {
    return r.promptTokens + r.maxNewTokens;
  }

  private release(r: SimRequest): void {
    this.kvReserved -= this.reserveFor(r);
    this.kvUsed -= r.prefilled + r.generated;
  }

  /** Drops aborted requests from the queue and the running batch. */
  private sweep(): void {
    if (this.queuedAborts > 0) {
      this.queuedAborts = 0;
      this.queue = this.queue.filter((r) => r.state !== 'aborted');
    }
    if (this.running.some((r) => r.state !== 'running')) {
      const keep: SimRequest[] = [];
      for (const r of this.running) {
        if (r.state === 'running') keep.push(r);
        else this.release(r);
      }
      this.running = keep;
    }
  }

  private step(): void {
    if (this.stopped) return;
    this.sweep();
    const prefill = this.planPrefill();
    let stepMs: number;
    let deliver: () => void;
    if (prefill.length > 0) {
      const tokens = prefill.reduce((s, x) => s + x.tokens, 0);
      stepMs = prefillStepMs(this.o.profile, this.o.model, tokens, this.kvUsed, prefill.length);
      deliver = () => this.finishPrefill(prefill);
    } else if (this.running.length > 0) {
      if (!this.firstDecodeDone) {
        this.firstDecodeDone = true;
        if (this.o.beforeFirstDecode && !this.o.beforeFirstDecode()) {
          this.stopped = true;
          return;
        }
      }
      const batch = this.running.filter((r) => r.prefilled >= r.promptTokens);
      stepMs = decodeStepMs(this.o.profile, this.o.model, batch.length, this.kvUsed);
      deliver = () => this.finishDecode(batch);
    } else {
      this.busy = false;
      this.idleSinceMs = performance.now();
      return;
    }
    this.simS += stepMs / 1000;
    this.nextRealMs += stepMs / this.o.timeScale;
    const waitMs = this.nextRealMs - performance.now();
    const next = () => {
      if (this.stopped) return;
      deliver();
      this.step();
    };
    if (waitMs > 1) setTimeout(next, waitMs);
    else setImmediate(next);
  }

  /** Admits queued requests (FIFO) and picks up to one chunk of prompt tokens to prefill. */
  private planPrefill(): { req: SimRequest; tokens: number }[] {
    const plan: { req: SimRequest; tokens: number }[] = [];
    let budget = this.o.chunkedPrefillSize;
    for (const r of this.running) {
      if (budget <= 0) break;
      if (r.prefilled < r.promptTokens) {
        const t = Math.min(budget, r.promptTokens - r.prefilled);
        plan.push({ req: r, tokens: t });
        budget -= t;
      }
    }
    while (budget > 0 && this.queue.length > 0 && this.running.length < this.o.maxRunningRequests) {
      const r = this.queue[0];
      if (this.kvReserved + this.reserveFor(r) > this.o.kvCapacityTokens && this.running.length > 0) break;
      this.queue.shift();
      r.state = 'running';
      this.kvReserved += this.reserveFor(r);
      this.kvUsed += r.prefilled; // prefix-cache hits: their KV is already there, nothing to prefill
      this.counters.promptTokensTotal += r.prefilled;
      this.running.push(r);
      const t = Math.min(budget, r.promptTokens - r.prefilled);
      plan.push({ req: r, tokens: t });
      budget -= t;
    }
    return plan;
  }

  private finishPrefill(plan: { req: SimRequest; tokens: number }[]): void {
    let newTokens = 0;
    for (const { req, tokens } of plan) {
      if (req.state !== 'running') continue;
      req.prefilled += tokens;
      this.kvUsed += tokens;
      newTokens += tokens;
      this.counters.promptTokensTotal += tokens;
      // the forward that completes a prompt also samples its first output token
      if (req.prefilled >= req.promptTokens) this.emit(req, 1, false);
    }
    this.o.log('prefill', {
      newSeq: plan.length,
      newToken: newTokens,
      tokenUsage: this.kvUsed / this.o.kvCapacityTokens,
      running: this.running.length,
      queued: this.queue.length,
    });
  }

  private finishDecode(batch: SimRequest[]): void {
    const spec = this.o.model.spec;
    for (const req of batch) {
      if (req.state !== 'running') continue;
      let n = 1;
      if (spec) {
        // tokens past max_new_tokens are never emitted, so they are not counted as accepted either
        const accepted = Math.min(
          drawAccepted(this.o.profile, spec, req.rng),
          req.maxNewTokens - req.generated - 1,
        );
        n = 1 + accepted;
        this.counters.specDraftTokensTotal += spec.numDraftTokens - 1;
        this.counters.specAcceptedTotal += accepted;
        for (let i = 0; i < accepted; i++)
          this.counters.specAcceptedPerPos[i] = (this.counters.specAcceptedPerPos[i] ?? 0) + 1;
        req.acceptedDraftTokens += accepted;
        this.logWindowAccepted += n;
        this.logWindowVerify++;
      }
      this.emit(req, n, true);
    }
    this.counters.decodeSteps++;
    if (this.counters.decodeSteps % this.o.decodeLogInterval === 0) {
      const spanS = this.simS - this.logWindowStartS;
      this.counters.genThroughputTokS = spanS > 0 ? this.logWindowTokens / spanS : 0;
      this.counters.lastAcceptLen =
        this.logWindowVerify > 0 ? this.logWindowAccepted / this.logWindowVerify : 0;
      this.o.log('decode', {
        running: this.running.length,
        tokens: this.kvUsed,
        tokenUsage: this.kvUsed / this.o.kvCapacityTokens,
        acceptLen: this.counters.lastAcceptLen,
        genThroughput: this.counters.genThroughputTokS,
        queued: this.queue.length,
      });
      this.logWindowStartS = this.simS;
      this.logWindowTokens = 0;
      this.logWindowVerify = 0;
      this.logWindowAccepted = 0;
    }
  }

  /** Emits up to `n` tokens for a request; finishes it at max_new_tokens. */
  private emit(req: SimRequest, n: number, isVerify: boolean): void {
    const count = Math.min(n, req.maxNewTokens - req.generated);
    if (count <= 0) return;
    req.generated += count;
    if (isVerify) {
      req.verifyCt++;
      if (this.o.model.spec) this.counters.specVerifyCt++;
    }
    this.kvUsed += count;
    this.counters.generationTokensTotal += count;
    this.logWindowTokens += count;
    if (req.firstTokenSimS === null) req.firstTokenSimS = this.simS;
    const done = req.generated >= req.maxNewTokens;
    if (done) {
      req.state = 'done';
      req.finishSimS = this.simS;
      this.counters.requestsFinished++;
    }
    req.onTokens(req, drawTokenIds(req.rng, count, VOCAB_SIZE));
  }
}
