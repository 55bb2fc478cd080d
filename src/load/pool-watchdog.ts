// The worker pool's watchdog: a worker whose event loop stops turning (a busy loop, a hang in native
// code) sends no heartbeat and reads no message, so neither an error nor an interrupt would ever reach
// the coordinator from it. The watchdog tells the pool when a running worker has been silent too long,
// and, after an interrupt, when the grace for stopping is over, so the pool ends those threads itself.

/** A running worker silent this long fails the level (heartbeats come every HEARTBEAT_MS). */
export const WORKER_SILENCE_LIMIT_MS = 15_000;
/** A worker still running this long after an interrupt is ended (its in-flight requests are dropped). */
export const INTERRUPT_GRACE_MS = 3_000;
/** A worker gets at least this long to start (loading its modules) before its first heartbeat. */
const START_LIMIT_MS = 60_000;
/** How often the watchdog looks. */
const CHECK_EVERY_MS = 250;

export interface WatchdogHooks {
  silenceLimitMs: number;
  interruptGraceMs: number;
  /** True while worker `w` has not finished its share. */
  running: (w: number) => boolean;
  /** Worker `w` has been silent `ms` while running. */
  silent: (w: number, ms: number) => void;
  /** The interrupt's grace is over with workers still running. */
  graceOver: () => void;
}

export class PoolWatchdog {
  private readonly lastHeardMs: number[];
  private readonly heardOnce: boolean[];
  private readonly timer: NodeJS.Timeout;
  private interruptedAtMs: number | null = null;
  /** True once the pool gave up waiting for workers after an interrupt. */
  abandoned = false;

  constructor(
    workers: number,
    private readonly h: WatchdogHooks,
  ) {
    const now = performance.now();
    this.lastHeardMs = Array.from({ length: workers }, () => now);
    this.heardOnce = Array.from({ length: workers }, () => false);
    this.timer = setInterval(() => this.check(), CHECK_EVERY_MS);
  }

  heard(w: number): void {
    this.lastHeardMs[w] = performance.now();
    this.heardOnce[w] = true;
  }

  interrupted(): void {
    this.interruptedAtMs ??= performance.now();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const now = performance.now();
    const running = this.lastHeardMs.map((_, w) => w).filter((w) => this.h.running(w));
    if (this.interruptedAtMs !== null && now - this.interruptedAtMs >= this.h.interruptGraceMs) {
      if (running.length > 0 && !this.abandoned) {
        this.abandoned = true;
        this.h.graceOver();
      }
      return;
    }
    for (const w of running) {
      const silentMs = now - (this.lastHeardMs[w] ?? now);
      const limitMs = this.heardOnce[w]
        ? this.h.silenceLimitMs
        : Math.max(this.h.silenceLimitMs, START_LIMIT_MS);
      if (silentMs >= limitMs) {
        this.h.silent(w, silentMs);
        return;
      }
    }
  }
}
