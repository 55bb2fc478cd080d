// Small, non-hot-path HTTP access to a target for engine adapters and checks (config endpoints,
// /metrics, /health). Never throws for an HTTP status; transport failures become `error` codes.
// Redirects are followed only within the target's origin (scheme, host, port): the plan's headers
// (API keys) must never reach another host, nor may another host's answers pass for the target's.

import { monoNowMs } from '../core/clock.js';
import { tryParsePythonJson } from '../core/python-json.js';
import type { HttpDoc, TargetHttp } from '../engines/types.js';
import { assertSendableHeaders } from './headers.js';
import { joinUrl, originOf } from './url.js';

export interface TargetHttpOptions {
  /** Extra headers sent with every request (e.g. Authorization). Never echoed into results. */
  headers?: Record<string, string>;
  /** Default total timeout per request in ms (default 10 s). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 5;

/** Describes a fetch failure in one sentence without leaking headers. */
function describeTransportError(url: string, e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e));
  return `could not connect to ${url} (${detail})`;
}

class CrossOriginRedirect extends Error {}

interface Call {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
}

/** fetch without automatic redirects; same-origin redirects followed here, any other is an error. */
async function fetchSameOrigin(url: string, call: Call): Promise<Response> {
  let current = new URL(url);
  let { method, body } = call;
  for (let hop = 0; ; hop++) {
    const res = await fetch(current, {
      method,
      headers: call.headers,
      body,
      signal: call.signal,
      redirect: 'manual',
    });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status > 399 || location === null || hop >= MAX_REDIRECTS) return res;
    const next = new URL(location, current);
    await res.body?.cancel();
    if (originOf(next) !== originOf(current))
      throw new CrossOriginRedirect(
        `${current.href} redirected (HTTP ${res.status}) to another origin, ${next.href}; benchgate does not follow it (the plan's headers are never sent to another host). Point target.url at the server itself.`,
      );
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    current = next;
  }
}

export function createTargetHttp(baseUrl: string, opts: TargetHttpOptions = {}): TargetHttp {
  assertSendableHeaders(opts.headers);
  const headers = { ...(opts.headers ?? {}) };
  const defaultTimeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    baseUrl,
    async request(path, reqOpts = {}): Promise<HttpDoc> {
      const url = joinUrl(baseUrl, path);
      const timeoutMs = reqOpts.timeoutMs ?? defaultTimeoutMs;
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const startMs = monoNowMs();
      try {
        const res = await fetchSameOrigin(url, {
          method: reqOpts.method ?? (reqOpts.body === undefined ? 'GET' : 'POST'),
          headers: reqOpts.body === undefined ? headers : { 'content-type': 'application/json', ...headers },
          body: reqOpts.body === undefined ? undefined : JSON.stringify(reqOpts.body),
          signal: controller.signal,
        });
        const text = await res.text();
        const contentType = res.headers.get('content-type');
        const doc: HttpDoc = { url, status: res.status, contentType, text, elapsedMs: monoNowMs() - startMs };
        const json = tryParsePythonJson(text);
        if (json !== undefined) doc.json = json;
        return doc;
      } catch (e) {
        const elapsedMs = monoNowMs() - startMs;
        const error =
          e instanceof CrossOriginRedirect
            ? { code: 'BG_E_CROSS_ORIGIN_REDIRECT' as const, message: e.message }
            : timedOut
              ? {
                  code: 'BG_E_TOTAL_TIMEOUT' as const,
                  message: `${url} did not answer within ${timeoutMs} ms`,
                }
              : { code: 'BG_E_CONNECT' as const, message: describeTransportError(url, e) };
        return { url, status: null, contentType: null, text: '', error, elapsedMs };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
