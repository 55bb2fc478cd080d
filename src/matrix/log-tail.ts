// Keeps the recent output lines of a launched server (fed by the host's onLine callback) and scans
// each new line for crash signatures, so waiting and sweeping can notice a dying server at once.

import { type CrashHit, findCrash } from './crash-signatures.js';

export class LogTail {
  private readonly recent: string[] = [];
  private total = 0;
  private crash: CrashHit | null = null;
  private pendingCrashLines: string[] | null = null;
  private pendingCrashStart = 0;

  constructor(private readonly keep = 200) {}

  readonly push = (line: string): void => {
    this.total += 1;
    this.recent.push(line);
    if (this.recent.length > this.keep) this.recent.shift();
    if (this.pendingCrashLines) {
      // Collect a few lines after the signature so the evidence shows the exception itself.
      this.pendingCrashLines.push(line);
      this.crash = findCrash(this.pendingCrashLines, this.pendingCrashStart);
      if (this.pendingCrashLines.length >= 60) this.pendingCrashLines = null;
      return;
    }
    if (this.crash) return;
    const hit = findCrash([line], this.total);
    if (hit) {
      this.crash = hit;
      this.pendingCrashLines = [line];
      this.pendingCrashStart = this.total;
    }
  };

  get lineCount(): number {
    return this.total;
  }

  /** The first crash signature seen, or null. */
  get crashHit(): CrashHit | null {
    return this.crash;
  }

  newest(): string | null {
    for (let i = this.recent.length - 1; i >= 0; i--) if (this.recent[i].trim() !== '') return this.recent[i];
    return null;
  }

  /** The last n lines, numbered like the captured output file (`NNN| text`). */
  excerpt(n = 12): string[] {
    const lines = this.recent.slice(-n);
    const first = this.total - lines.length + 1;
    return lines.map((l, i) => `${first + i}| ${l}`);
  }
}
