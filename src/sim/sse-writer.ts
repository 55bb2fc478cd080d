// Writes a stream's SSE events with one socket write per stream per scheduler step: events queued
// during one synchronous scheduler run are joined and flushed together on the next tick, framed as
// one HTTP chunk and written straight to the socket (no per-event cork, nextTick and writev).

import type { ServerResponse } from 'node:http';

const dirty: SseWriter[] = [];
let flushQueued = false;

function flushDirty(): void {
  flushQueued = false;
  // a flush never queues more work, so the list is stable while it is walked
  for (let i = 0; i < dirty.length; i++) dirty[i].flush();
  dirty.length = 0;
}

export class SseWriter {
  private readonly res: ServerResponse;
  private pending = '';
  /** Socket writes made (tests and benchmarks read it). */
  writes = 0;

  constructor(res: ServerResponse) {
    this.res = res;
  }

  /** Queues events; they leave in one write when the current scheduler step has finished. */
  write(events: string): void {
    if (events.length === 0) return;
    if (this.pending.length === 0) {
      dirty.push(this);
      if (!flushQueued) {
        flushQueued = true;
        process.nextTick(flushDirty);
      }
    }
    this.pending += events;
  }

  /** Sends what is queued now, as one HTTP chunk. */
  flush(): void {
    const data = this.pending;
    if (data.length === 0) return;
    this.pending = '';
    const res = this.res;
    const socket = res.socket;
    if (socket?.destroyed) return;
    this.writes++;
    if (socket && res.chunkedEncoding) {
      // the same framing Node's res.write would produce, as one string and one write
      socket.write(`${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`);
    } else {
      // HTTP/1.0 (no chunked framing) or a pipelined response still waiting for its socket
      res.write(data);
    }
  }

  /** Flushes, then ends the response (the terminating chunk goes through Node's own end()). */
  end(): void {
    this.flush();
    this.res.end();
  }
}
