// Small, non-hot-path HTTP access to a target for engine adapters and checks (config endpoints,
// /metrics, /health). Never throws for an HTTP status; transport failures become `error` codes.

import { monoNowMs } from '../core/clock.js';
import type { HttpDoc, TargetHttp } from '../engines/types.js';

export interface TargetHttpOptions {
  /** Extra headers sent with every request (e.g. Authorization). Never echoed into results. */
  headers?: Record<string, string>;
  /** Default total timeout per request in ms (default 10 s). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Parses JSON, tolerating the bare `Infinity`, `-Infinity` and `NaN` tokens Python's json module
 * emits (SGLang / vLLM server_info can contain them). Returns undefined when the text is not JSON.
 */
export function parseTolerantJson(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '' || !/^[[{"\d\-tfnNI]/.test(trimmed)) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    // fall through to the tolerant path
  }
  const rewritten = replaceBareNonFinite(trimmed);
  if (rewritten === trimmed) return undefined;
  try {
    return JSON.parse(rewritten, (_k, v) => (typeof v === 'string' ? decodeNonFinite(v) : v));
  } catch {
    return undefined;
  }
}

const MARK = '\u0000bgnum:';

/** Replaces bare Infinity/-Infinity/NaN outside strings with marker strings, leaving strings intact. */
function replaceBareNonFinite(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const m = /^(-?Infinity|NaN)/.exec(text.slice(i, i + 9));
    if (m && !/[A-Za-z0-9_]/.test(text[i - 1] ?? '')) {
      out += JSON.stringify(MARK + m[1]);
      i += m[1].length;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

function decodeNonFinite(v: string): unknown {
  if (!v.startsWith(MARK)) return v;
  const token = v.slice(MARK.length);
  return token === 'NaN' ? Number.NaN : token === '-Infinity' ? -Infinity : Infinity;
}

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
        const json = parseTolerantJson(text);
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
