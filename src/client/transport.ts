// The seam between a request's record-keeping (stream-run.ts) and the bytes on the wire: each
// transport (raw socket pool, undici, node:http) reports a response through these calls,
// every one stamped with the monotonic arrival time of the read that carried it.

export interface TransportHandlers {
  onHead(status: number, contentType: string, atAbs: number): void;
  /** Body bytes buf[start, end), valid only during the call. */
  onBody(buf: Buffer, start: number, end: number, atAbs: number): void;
  onEnd(atAbs: number): void;
  /** 'connect' before any response byte, 'response' after. */
  onFail(phase: 'connect' | 'response', detail: string, atAbs: number): void;
  /** The request is sent again on a new connection (a reused one closed before any answer). */
  onRetry?(reason: string): void;
}

/** Sends the prepared request and returns its cancel (called when the record finishes early). */
export type Send = () => () => void;

/** Which transport carries a request: 'raw' (plain http only), 'undici' or 'node-http'. */
export type TransportName = 'raw' | 'undici' | 'node-http';

/** Connect timeout, the one transport setting the client's own deadlines cannot cover. */
export interface SendSpec {
  url: URL;
  body: string;
  headers: Record<string, string> | undefined;
  connectMs: number;
}
