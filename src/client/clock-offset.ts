// How far this process's wall clock is from a reference server's, to sub-millisecond bounds, using only
// the HTTP `Date` header every server sends (whole seconds): requests are sent back to back until the
// header's second changes; that boundary happened on the server between the earlier request's send and
// the later one's response, which bounds the offset to half that interval (the htpdate method). Shards
// of one run measure against the same reference at start and end, so `benchgate merge` can place all
// their records on one timeline and state how exact that is. Servers that refresh `Date` lazily (uvicorn
// does every 100 ms) make the offset late by up to that period: point BENCHGATE_CLOCK_REF elsewhere then.

import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { joinUrl } from './url.js';

export interface ClockOffset {
  /** Reference wall clock − this process's wall clock, ms. */
  offsetMs: number;
  /** Half-width of the interval the true offset lies in, ms. */
  uncertaintyMs: number;
}

/** This process's wall clock with sub-millisecond resolution (Date.now() has whole milliseconds). */
export function preciseWallMs(): number {
  return performance.timeOrigin + performance.now();
}

interface Probe {
  sentMs: number;
  answeredMs: number;
  dateS: number;
}

function probe(url: URL, agent: http.Agent, headers: Record<string, string>): Promise<Probe | null> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const sentMs = preciseWallMs();
    const req = lib.get(url, { agent, headers, timeout: 5000 }, (res) => {
      const answeredMs = preciseWallMs();
      res.resume();
      const date = Date.parse(String(res.headers.date ?? ''));
      res.on('end', () => resolve(Number.isFinite(date) ? { sentMs, answeredMs, dateS: date / 1000 } : null));
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

export interface MeasureOptions {
  path?: string;
  headers?: Record<string, string>;
  /** Give up after this long without seeing the second change (default 2500 ms). */
  maxMs?: number;
}

/** The offset to `baseUrl`'s clock, or null when it sends no usable Date header or does not answer. */
export async function measureClockOffset(
  baseUrl: string,
  opts: MeasureOptions = {},
): Promise<ClockOffset | null> {
  const url = new URL(joinUrl(baseUrl, opts.path ?? '/v1/models'));
  const agent = new (url.protocol === 'https:' ? https : http).Agent({ keepAlive: true, maxSockets: 1 });
  const deadline = preciseWallMs() + (opts.maxMs ?? 2500);
  try {
    let prev = await probe(url, agent, opts.headers ?? {});
    while (prev !== null && preciseWallMs() < deadline) {
      const cur = await probe(url, agent, opts.headers ?? {});
      if (cur === null) return null;
      if (cur.dateS === prev.dateS + 1) {
        const midMs = (prev.sentMs + cur.answeredMs) / 2;
        return { offsetMs: cur.dateS * 1000 - midMs, uncertaintyMs: (cur.answeredMs - prev.sentMs) / 2 };
      }
      prev = cur;
    }
    return null;
  } finally {
    agent.destroy();
  }
}
