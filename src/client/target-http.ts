// Small, non-hot-path HTTP access to a target for engine adapters and checks (config endpoints,
// /metrics, /health). Never throws for an HTTP status; transport failures become `error` codes.

import { monoNowMs } from '../core/clock.js';
import { tryParsePythonJson } from '../core/python-json.js';
import type { HttpDoc, TargetHttp } from '../engines/types.js';

export interface TargetHttpOptions {
  /** Extra headers sent with every request (e.g. Authorization). Never echoed into results. */
  headers?: Record<string, string>;
  /** Default total timeout per request in ms (default 10 s). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

/** Describes a fetch failure in one sentence without leaking headers. */
function describeTransportError(url: string, e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e));
  return `could not connect to ${url} (${detail})`;
}

export function createTargetHttp(baseUrl: string, opts: TargetHttpOptions = {}): TargetHttp {
  const headers = { ...(opts.headers ?? {}) };
  const defaultTimeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    baseUrl,
    async request(path, reqOpts = {}): Promise<HttpDoc> {
      const url = joinUrl(baseUrl, path);
      const method = reqOpts.method ?? (reqOpts.body === undefined ? 'GET' : 'POST');
      const timeoutMs = reqOpts.timeoutMs ?? defaultTimeoutMs;
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const startMs = monoNowMs();
      try {
        const res = await fetch(url, {
          method,
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
        const error = timedOut
          ? { code: 'BG_E_TOTAL_TIMEOUT' as const, message: `${url} did not answer within ${timeoutMs} ms` }
          : { code: 'BG_E_CONNECT' as const, message: describeTransportError(url, e) };
        return { url, status: null, contentType: null, text: '', error, elapsedMs };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
