// An open-loop cap (load.max_concurrency) shared by the worker threads of one level: one counter of free
// slots in a SharedArrayBuffer, taken with compare-and-swap and waited on with Atomics.waitAsync, so the
// level's requests in flight stay under the cap across all workers exactly as in one thread, instead of
// each worker holding a fixed part of the slots.

/** Atomics.waitAsync (Node ≥ 16; typed from lib ES2024, one step beyond this project's ES2023). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      a: Int32Array,
      index: number,
      value: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/** A counting semaphore over shared memory; the same `Int32Array` is usable from every thread. */
export class SharedSlots {
  constructor(private readonly cell: Int32Array) {}

  /** One cell holding `n` free slots, for passing to the workers (structured clone keeps it shared). */
  static cell(n: number): Int32Array {
    const cell = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    cell[0] = n;
    return cell;
  }

  async acquire(): Promise<void> {
    for (;;) {
      const free = Atomics.load(this.cell, 0);
      if (free > 0) {
        if (Atomics.compareExchange(this.cell, 0, free, free - 1) === free) return;
        continue;
      }
      // sleeps only while the count is still 0: a release in between makes this return at once
      const w = waitAsync(this.cell, 0, free);
      if (w.async) await w.value;
    }
  }

  release(): void {
    Atomics.add(this.cell, 0, 1);
    Atomics.notify(this.cell, 0, 1);
  }
}
