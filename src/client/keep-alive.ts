// When a kept-alive connection may carry another request. Servers close idle connections on their own
// clock (llama.cpp's httplib after 5 s and 100 requests, announced as `Keep-Alive: timeout=5, max=100`;
// uvicorn under SGLang and vLLM after 5 s, announced nowhere), and a request written to a socket the
// server is closing fails before any answer. So a connection is reused only inside the window the
// server announced (or the common 5 s when it announced none), less a safety margin, and never past
// the request count it allows.

/** The server's idle timeout assumed when a response carries no `Keep-Alive: timeout=` (uvicorn, httplib: 5 s). */
export const ASSUMED_SERVER_IDLE_TIMEOUT_MS = 5000;

/** How much earlier than the server's idle timeout a connection stops being reused. */
export const REUSE_MARGIN_MS = 1000;

export interface KeepAliveHint {
  /** `timeout=N` in seconds; null when absent or unreadable. */
  timeoutS: number | null;
  /** `max=M`; null when absent or unreadable. */
  max: number | null;
}

/** Reads a `Keep-Alive` header value (`timeout=5, max=100`); unknown parameters are ignored. */
export function parseKeepAlive(value: string): KeepAliveHint {
  const hint: KeepAliveHint = { timeoutS: null, max: null };
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    const raw = part.slice(eq + 1).trim();
    if (!/^\d{1,9}$/.test(raw)) continue;
    if (name === 'timeout') hint.timeoutS = Number(raw);
    else if (name === 'max') hint.max = Number(raw);
  }
  return hint;
}

/** How long after a response ends its connection may still be reused, in ms (0: not at all). */
export function reuseWindowMs(hint: KeepAliveHint | null): number {
  const serverMs = hint?.timeoutS != null ? hint.timeoutS * 1000 : ASSUMED_SERVER_IDLE_TIMEOUT_MS;
  if (serverMs <= 0) return 0;
  // a short server timeout keeps half of itself as the margin
  return serverMs > 2 * REUSE_MARGIN_MS ? serverMs - REUSE_MARGIN_MS : serverMs / 2;
}

/**
 * Requests a connection may carry in all, from the `max=` seen after its `served`-th response: servers
 * either repeat their fixed total (httplib: max=100 on every response) or count down what is left
 * (Apache). Taking the smallest `served - 1 + max` over the responses is right for the first and one
 * short for the second, never over.
 */
export function requestLimit(previous: number, served: number, hint: KeepAliveHint | null): number {
  if (hint?.max == null) return previous;
  return Math.min(previous, served - 1 + hint.max);
}
