// The simulated engine process: its identity (pid, start time, restarts), its life (loading, ready,
// crashed, closed) and the restart that gives it a new pid, start time, scheduler and model load.

import type { SimExit } from './api.js';
import type { Scheduler } from './request.js';

export type Phase = 'loading' | 'ready' | 'crashed' | 'closed';

/** What the process needs from the server around it. */
export interface ProcessHooks {
  /** A fresh scheduler for a new process. */
  newScheduler(): Scheduler;
  /** Start-up lines of a new process. */
  started(at: Date): void;
  /** Load and ready lines once the weights are in. */
  loaded(at: Date): void;
  /** Real seconds the model load takes. */
  loadTimeS(): number;
  /** Destroys every open response (the process that served them is gone). */
  dropResponses(): void;
  /** Stops serving: ends (after a crash: destroys) every response and stops listening. */
  stopServing(crashed: boolean): void;
}

export class SimProcess {
  phase: Phase = 'loading';
  pid = process.pid;
  restarts = 0;
  /** Epoch ms of the current process start (0 before the first). */
  startEpochMs = 0;
  /** Generation requests completed since the current process started. */
  finishedSinceStart = 0;
  scheduler!: Scheduler;
  readonly ready: Promise<void>;
  readonly exited: Promise<SimExit>;
  private readonly hooks: ProcessHooks;
  private loadTimer: NodeJS.Timeout | null = null;
  private readyWaiters: (() => void)[] = [];
  private exitResolve!: (e: SimExit) => void;

  constructor(hooks: ProcessHooks) {
    this.hooks = hooks;
    this.exited = new Promise((r) => {
      this.exitResolve = r;
    });
    this.ready = new Promise((r) => this.readyWaiters.push(r));
  }

  /** Starts (or restarts) the process: start-up lines, fresh scheduler, load timer. */
  begin(): void {
    this.phase = 'loading';
    this.startEpochMs = Math.max(Date.now(), this.startEpochMs + 1000);
    this.finishedSinceStart = 0;
    this.scheduler?.stop();
    this.scheduler = this.hooks.newScheduler();
    this.hooks.started(new Date(this.startEpochMs));
    this.loadTimer = setTimeout(() => this.finishLoad(), Math.max(0, this.hooks.loadTimeS() * 1000));
  }

  private finishLoad(): void {
    this.loadTimer = null;
    if (this.phase !== 'loading') return;
    this.hooks.loaded(new Date());
    this.phase = 'ready';
    for (const w of this.readyWaiters.splice(0)) w();
  }

  /** A generation request completed; restarts after `restartAfter` of them (0 = never). */
  requestFinished(restartAfter: number): void {
    this.finishedSinceStart++;
    if (restartAfter > 0 && this.finishedSinceStart >= restartAfter) setImmediate(() => this.restart());
  }

  /** restart-after: new pid and start time, streams dropped, fresh load. */
  restart(): void {
    if (this.phase !== 'ready') return;
    this.restarts++;
    this.pid = process.pid + this.restarts * 1000;
    this.hooks.dropResponses();
    this.begin();
  }

  /** The process dies (non-zero exit): stops serving and reports `reason`. */
  crash(reason: string): void {
    this.phase = 'crashed';
    this.shutdown();
    this.exitResolve({ code: 1, reason });
  }

  close(): void {
    if (this.phase === 'closed') return;
    const wasCrashed = this.phase === 'crashed';
    this.phase = 'closed';
    this.shutdown();
    if (!wasCrashed) this.exitResolve({ code: 0, reason: 'closed' });
    for (const w of this.readyWaiters.splice(0)) w();
  }

  private shutdown(): void {
    this.scheduler?.stop();
    if (this.loadTimer) clearTimeout(this.loadTimer);
    this.hooks.stopServing(this.phase === 'crashed');
  }
}
