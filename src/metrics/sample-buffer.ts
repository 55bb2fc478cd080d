// A growable Float64Array for latency samples: a level can hold millions of token-ITL samples, and
// typed storage plus the native numeric sort keep summarising them fast and compact.

export class SampleBuffer {
  private data: Float64Array;
  private size = 0;

  constructor(initialCapacity = 1024) {
    this.data = new Float64Array(Math.max(16, initialCapacity));
  }

  get length(): number {
    return this.size;
  }

  push(value: number): void {
    if (this.size === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.size++] = value;
  }

  /** The samples as a view (no copy); valid until the next push. */
  view(): Float64Array {
    return this.data.subarray(0, this.size);
  }
}
