// Splits an SSE body arriving as byte slices into event payloads (the joined `data:` lines).
// Only complete lines are decoded, and a line always ends at an ASCII '\n', so a multi-byte
// character split across reads is never cut; the unfinished tail is the only thing copied.
// One event may not grow past a byte cap: a server streaming a huge event is stopped at the cap
// (reported through `onOversize`) instead of being buffered whole.

export type SseEventSink = (data: string) => void;

export class SseScanner {
  /** Bytes of an unfinished line carried over from the previous slice. */
  private tail: Buffer | null = null;
  /** `data:` lines of the event being assembled; null when none yet. */
  private eventData: string | null = null;
  private readonly onEvent: SseEventSink;
  private readonly maxEventBytes: number;
  private readonly onOversize: (bytes: number) => void;
  /** Set by the owner to stop dispatching (e.g. the request already finished). */
  stopped = false;

  constructor(
    onEvent: SseEventSink,
    maxEventBytes = Number.POSITIVE_INFINITY,
    onOversize: (bytes: number) => void = () => {},
  ) {
    this.onEvent = onEvent;
    this.maxEventBytes = maxEventBytes;
    this.onOversize = onOversize;
  }

  /** Stops at the first event (or unfinished line) longer than the cap. */
  private oversize(bytes: number): boolean {
    if (bytes <= this.maxEventBytes) return false;
    this.stopped = true;
    this.tail = null;
    this.eventData = null;
    this.onOversize(bytes);
    return true;
  }

  /** Feeds body bytes buf[start, end). Events whose blank line is in this slice are dispatched now. */
  feed(buf: Buffer, start: number, end: number): void {
    if (start >= end || this.stopped) return;
    if (this.tail !== null) {
      buf = Buffer.concat([this.tail, buf.subarray(start, end)]);
      start = 0;
      end = buf.length;
      this.tail = null;
    }
    let lastNl = buf.lastIndexOf(10, end - 1);
    if (lastNl < start) lastNl = -1;
    if (lastNl < 0) {
      if (this.oversize(end - start + (this.eventData?.length ?? 0))) return;
      this.tail = Buffer.from(buf.subarray(start, end));
      return;
    }
    this.scanLines(buf.toString('utf8', start, lastNl + 1));
    if (lastNl + 1 < end && !this.stopped && !this.oversize(end - lastNl - 1))
      this.tail = Buffer.from(buf.subarray(lastNl + 1, end));
  }

  /** End of the body: a final line without '\n' and an event without its blank line still count. */
  flush(): void {
    if (this.stopped) return;
    if (this.tail !== null) {
      const rest = this.tail.toString('utf8');
      this.tail = null;
      this.scanLines(`${rest}\n`);
    }
    if (this.eventData !== null && !this.stopped) {
      const d = this.eventData;
      this.eventData = null;
      this.onEvent(d);
    }
  }

  /** `text` holds only complete lines (it ends with '\n'). */
  private scanLines(text: string): void {
    let start = 0;
    const len = text.length;
    while (start < len) {
      const nl = text.indexOf('\n', start);
      let lineEnd = nl;
      if (lineEnd > start && text.charCodeAt(lineEnd - 1) === 13) lineEnd--;
      if (lineEnd === start) {
        if (this.eventData !== null) {
          const d = this.eventData;
          this.eventData = null;
          this.onEvent(d);
          if (this.stopped) return;
        }
      } else if (text.startsWith('data:', start)) {
        const from = text.charCodeAt(start + 5) === 32 ? start + 6 : start + 5;
        const line = text.slice(from, lineEnd);
        this.eventData = this.eventData === null ? line : `${this.eventData}\n${line}`;
        if (this.eventData.length > this.maxEventBytes && this.oversize(this.eventData.length)) return;
      }
      // other fields (event:, id:, retry:, comments) carry nothing the metrics need
      start = nl + 1;
    }
  }
}
