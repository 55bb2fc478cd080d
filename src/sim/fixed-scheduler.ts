// The single scheduler loop of the `fixed` calibration profile: every request gets its first chunk
// ttftMs after arrival and one chunk of tokensPerChunk tokens every itlMs after that (both divided by
// the time scale). Two FIFO queues (awaiting first chunk, decoding) keep due times ordered, so the
// loop costs O(1) per chunk and never uses a timer per request. With itlMs 0 every chunk is due at
// once, so one loop run emits up to ZERO_ITL_BURST chunks per stream (they leave in one write).

import { performance } from 'node:perf_hooks';
import type { Scheduler, SchedulerCounters, SimRequest } from './request.js';
import { drawTokenIds, newCounters } from './request.js';
import { VOCAB_SIZE } from './tokenizer.js';

export interface FixedOptions {
  ttftMs: number;
  itlMs: number;
  tokensPerChunk: number;
  timeScale: number;
  beforeFirstDecode?: () => boolean;
}

/** Chunks per stream per loop run when itlMs is 0: bounds one run's length and one write's size. */
export const ZERO_ITL_BURST = 32;

interface Due {
  req: SimRequest;
  atMs: number;
}

/** A FIFO with O(1) shift. */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  push(x: T): void {
    this.items.push(x);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  shift(): T | undefined {
    const x = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return x;
  }
  get length(): number {
    return this.items.length - this.head;
  }
}

export class FixedScheduler implements Scheduler {
  readonly counters: SchedulerCounters = newCounters();
  private readonly o: FixedOptions;
  private readonly ttftRealMs: number;
  private readonly itlRealMs: number;
  private awaitingFirst = new Fifo<Due>();
  private decoding = new Fifo<Due>();
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private stopped = false;
  private firstDecodeDone = false;
  private readonly startMs = performance.now();
  private kvUsed = 0;

  constructor(o: FixedOptions) {
    this.o = o;
    this.ttftRealMs = o.ttftMs / o.timeScale;
    this.itlRealMs = o.itlMs / o.timeScale;
  }

  submit(req: SimRequest): void {
    req.state = 'running';
    req.arrivalSimS = this.simNowS();
    req.prefilled = req.promptTokens;
    this.kvUsed += req.promptTokens;
    this.counters.promptTokensTotal += req.promptTokens;
    this.awaitingFirst.push({ req, atMs: req.arrivalMs + this.ttftRealMs });
    this.arm();
  }

  abort(req: SimRequest): void {
    if (req.state === 'running' || req.state === 'queued') req.state = 'aborted';
  }

  numRunning(): number {
    return this.awaitingFirst.length + this.decoding.length;
  }

  numQueued(): number {
    return 0;
  }

  kvUsedTokens(): number {
    return this.kvUsed;
  }

  simNowS(): number {
    return ((performance.now() - this.startMs) * this.o.timeScale) / 1000;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
  }

  /** Schedules the loop for the earliest due chunk. */
  private arm(): void {
    if (this.stopped || this.immediate) return;
    const a = this.awaitingFirst.peek();
    const d = this.decoding.peek();
    if (!a && !d) return;
    const at = Math.min(a ? a.atMs : Number.POSITIVE_INFINITY, d ? d.atMs : Number.POSITIVE_INFINITY);
    const waitMs = at - performance.now();
    if (waitMs > 1) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = null;
        this.run();
      }, waitMs);
    } else {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
      this.immediate = setImmediate(() => {
        this.immediate = null;
        this.run();
      });
    }
  }

  private run(): void {
    if (this.stopped) return;
    const now = performance.now();
    const firsts = this.awaitingFirst;
    while (firsts.length > 0 && firsts.peek()!.atMs <= now) {
      const { req } = firsts.shift()!;
      if (req.state !== 'running') {
        this.kvUsed -= req.promptTokens;
        continue;
      }
      this.emit(req, now, false);
    }
    const dec = this.decoding;
    for (let n = dec.length; n > 0 && dec.length > 0 && dec.peek()!.atMs <= now; n--) {
      const { req } = dec.shift()!;
      if (req.state !== 'running') {
        this.kvUsed -= req.promptTokens + req.generated;
        continue;
      }
      if (!this.firstDecodeDone) {
        this.firstDecodeDone = true;
        if (this.o.beforeFirstDecode && !this.o.beforeFirstDecode()) {
          this.stop();
          return;
        }
      }
      let burst = this.itlRealMs > 0 ? 1 : ZERO_ITL_BURST;
      while (this.emit(req, now, --burst > 0));
    }
    this.arm();
  }

  /**
   * Emits one chunk. Returns true when the caller may emit the next one right away (itlMs 0 and
   * mayContinue); otherwise the request's next chunk is queued.
   */
  private emit(req: SimRequest, now: number, mayContinue: boolean): boolean {
    const count = Math.min(this.o.tokensPerChunk, req.maxNewTokens - req.generated);
    const isFirst = req.generated === 0;
    req.generated += count;
    if (!isFirst) req.verifyCt++;
    this.kvUsed += count;
    this.counters.generationTokensTotal += count;
    if (req.firstTokenSimS === null) req.firstTokenSimS = this.simNowS();
    if (req.generated >= req.maxNewTokens) {
      req.state = 'done';
      req.finishSimS = this.simNowS();
      this.counters.requestsFinished++;
      this.kvUsed -= req.promptTokens + req.generated;
    }
    req.onTokens(req, drawTokenIds(req.rng, count, VOCAB_SIZE));
    if (req.state !== 'running') {
      // aborted from inside onTokens (client gone, reset fault): release its KV now, it is not queued
      if (req.state === 'aborted') this.kvUsed -= req.promptTokens + req.generated;
      return false;
    }
    if (mayContinue && this.itlRealMs <= 0) return true;
    this.decoding.push({ req, atMs: now + this.itlRealMs });
    return false;
  }
}
