// How a simulated engine's HTTP server treats connections, so the suite catches a client that starves
// a real one: how many connections it serves at once (a "thread" each, held until the connection
// closes, idle keep-alive time included, as llama.cpp's httplib thread pool does), how long an idle
// connection stays open, how many requests one may carry, and what it announces. The defaults are the
// engines' own:
// - llama.cpp (cpp-httplib 0.19–0.45, vendored by llama-server b4747–b9402): keep-alive timeout 5 s,
//   100 requests per connection, `Keep-Alive: timeout=5, max=100` on every answer, `Connection: close`
//   on the 100th; httplib 0.28 and later (b7501 on) also close after any answer with status ≥ 400.
// - uvicorn under SGLang (`uvicorn.run(..., timeout_keep_alive=5)`, srt/entrypoints/http_server.py)
//   and vLLM (`VLLM_HTTP_TIMEOUT_KEEP_ALIVE`, default 5, vllm/envs.py): 5 s, no request limit, no
//   Keep-Alive header.
// The thread cap is off unless asked for (`benchgate sim --http-threads N`): uvicorn serves any number
// of connections, and llama-server from b9402 on adds up to 1,024 dynamic threads beyond its fixed
// ones; older llama-server builds serve max(n_parallel + 2, cores − 1) connections at once.

import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionPolicy {
  /** Connections served at once, idle keep-alive ones included; null = no cap. */
  httpThreads: number | null;
  /** Idle keep-alive timeout in seconds. */
  keepAliveTimeoutS: number;
  /** Requests one connection may carry (the last answer says `Connection: close`); null = no limit. */
  keepAliveMax: number | null;
  /** Every answer announces `Keep-Alive: timeout=N, max=M` (httplib); uvicorn announces nothing. */
  announceKeepAlive: boolean;
  /** An answer with status ≥ 400 closes its connection (httplib ≥ 0.28). */
  closeAfterError: boolean;
  /**
   * A streamed answer closes its connection, its headers still announcing keep-alive (llama-server
   * b7501; the `close-after-stream` fault). Absent: false.
   */
  closeAfterStream?: boolean;
}

/** The connection behaviour of one engine's HTTP server, without the (optional) thread cap. */
export type HttpServerKind = Omit<ConnectionPolicy, 'httpThreads'>;

/** llama-server's cpp-httplib. */
export const HTTPLIB: HttpServerKind = {
  keepAliveTimeoutS: 5,
  keepAliveMax: 100,
  announceKeepAlive: true,
  closeAfterError: true,
};

/** uvicorn as SGLang and vLLM start it. */
export const UVICORN: HttpServerKind = {
  keepAliveTimeoutS: 5,
  keepAliveMax: null,
  announceKeepAlive: false,
  closeAfterError: false,
};

/**
 * Sets the connection headers of the `served`-th answer on its connection. Node would add its own
 * `Keep-Alive: timeout=` to an answer without a Connection header; naming `Connection` stops that.
 */
export function applyKeepAlive(p: ConnectionPolicy, res: ServerResponse, served: number): void {
  if (p.keepAliveMax !== null && served >= p.keepAliveMax) {
    res.setHeader('Connection', 'close');
    return;
  }
  res.setHeader('Connection', 'keep-alive');
  if (p.announceKeepAlive) {
    const max = p.keepAliveMax === null ? '' : `, max=${p.keepAliveMax}`;
    res.setHeader('Keep-Alive', `timeout=${p.keepAliveTimeoutS}${max}`);
  }
  if (!p.closeAfterError) return;
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (status >= 400) {
      res.setHeader('Connection', 'close');
      res.removeHeader('Keep-Alive');
    }
    return writeHead(status, ...rest);
  }) as ServerResponse['writeHead'];
}

/** Closes a connection that stays idle (no request being answered) for the keep-alive timeout. */
export class IdleCloser {
  private readonly timers = new WeakMap<Socket, NodeJS.Timeout>();

  constructor(private readonly timeoutMs: number) {}

  /** A request arrived on `s`: it is not idle. */
  busy(s: Socket): void {
    const t = this.timers.get(s);
    if (t) clearTimeout(t);
    this.timers.delete(s);
  }

  /** `s` is waiting for its next request from now. */
  idle(s: Socket): void {
    this.busy(s);
    if (s.destroyed) return;
    const t = setTimeout(() => s.destroy(), this.timeoutMs);
    t.unref();
    this.timers.set(s, t);
  }
}

/** Counts of what the listener saw, for GET /_sim/connections. */
export class ConnectionStats {
  private accepted = 0;
  private peakOpen = 0;
  private peakWaiting = 0;

  constructor(private readonly policy: ConnectionPolicy) {}

  opened(open: number): void {
    this.accepted++;
    if (open > this.peakOpen) this.peakOpen = open;
  }

  queued(waiting: number): void {
    if (waiting > this.peakWaiting) this.peakWaiting = waiting;
  }

  snapshot(open: number, busyThreads: number, waiting: number): Record<string, unknown> {
    return {
      open,
      peakOpen: this.peakOpen,
      accepted: this.accepted,
      httpThreads: this.policy.httpThreads,
      busyThreads,
      waiting,
      peakWaiting: this.peakWaiting,
      keepAlive: { timeoutS: this.policy.keepAliveTimeoutS, max: this.policy.keepAliveMax },
    };
  }
}
