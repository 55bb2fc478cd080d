// Small, non-hot-path HTTP access to a target for engine adapters and checks (config endpoints,
// /metrics, /health), over the shared control channel (control-http.ts: two connections at most, a
// byte cap on every reply). Never throws for an HTTP status; transport failures, timeouts and replies
// over the cap become `error` codes.
// Redirects are followed only within the target's origin (scheme, host, port): the plan's headers
// (API keys) must never reach another host, nor may another host's answers pass for the target's.

import { monoNowMs } from '../core/clock.js';
import { tryParsePythonJson } from '../core/python-json.js';
import type { HttpDoc, TargetHttp } from '../engines/types.js';
import { type ControlReply, controlRequest, DEFAULT_MAX_REPLY_BYTES } from './control-http.js';
import { assertSendableHeaders } from './headers.js';
import { joinUrl, originOf } from './url.js';

export interface TargetHttpOptions {
  /** Extra headers sent with every request (e.g. Authorization). Never echoed into results. */
  headers?: Record<string, string>;
  /** Default total timeout per request in ms (default 10 s). */
  timeoutMs?: number;
  /** Largest reply body read, in bytes (default 32 MiB); a bigger one is BG_E_REPLY_TOO_LARGE. */
  maxReplyBytes?: number;
  /**
   * The run's interrupt: once it aborts, every request of this client (in flight or new) ends at once
   * with BG_E_ABORTED, so no wait on a busy or frozen server outlives a Ctrl-C.
   */
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 5;

class CrossOriginRedirect extends Error {}

interface Call {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | undefined;
  deadlineMs: number;
  maxBytes: number;
  signal: AbortSignal | undefined;
}

/** A request over the control channel; same-origin redirects followed here, any other is an error. */
async function requestSameOrigin(url: string, call: Call): Promise<{ reply: ControlReply; url: string }> {
  let current = new URL(url);
  let { method, body } = call;
  for (let hop = 0; ; hop++) {
    const reply = await controlRequest(current, {
      method,
      headers: call.headers,
      body,
      timeoutMs: Math.max(1, call.deadlineMs - monoNowMs()),
      maxBytes: call.maxBytes,
      signal: call.signal,
    });
    const { status, location } = reply;
    if (status === null || status < 300 || status > 399 || location === null || hop >= MAX_REDIRECTS)
      return { reply, url: current.href };
    const next = new URL(location, current);
    if (originOf(next) !== originOf(current))
      throw new CrossOriginRedirect(
        `${current.href} redirected (HTTP ${status}) to another origin, ${next.href}; benchgate does not follow it (the plan's headers are never sent to another host). Point target.url at the server itself.`,
      );
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    current = next;
  }
}

function failureOf(reply: ControlReply, url: string, timeoutMs: number): HttpDoc['error'] {
  const f = reply.failure;
  if (f === null) return undefined;
  if (f.kind === 'timeout')
    return { code: 'BG_E_TOTAL_TIMEOUT', message: `${url} did not answer within ${timeoutMs} ms` };
  if (f.kind === 'aborted') return { code: 'BG_E_ABORTED', message: `${url}: ${f.message}` };
  if (f.kind === 'too-large') return { code: 'BG_E_REPLY_TOO_LARGE', message: `${url}: ${f.message}` };
  return { code: 'BG_E_CONNECT', message: `could not connect to ${url} (${f.message})` };
}

export function createTargetHttp(baseUrl: string, opts: TargetHttpOptions = {}): TargetHttp {
  assertSendableHeaders(opts.headers);
  const headers = { ...(opts.headers ?? {}) };
  const defaultTimeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = opts.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  return {
    baseUrl,
    async request(path, reqOpts = {}): Promise<HttpDoc> {
      const url = joinUrl(baseUrl, path);
      const timeoutMs = reqOpts.timeoutMs ?? defaultTimeoutMs;
      const startMs = monoNowMs();
      const signals = [opts.signal, reqOpts.signal].filter((x): x is AbortSignal => x !== undefined);
      try {
        const { reply } = await requestSameOrigin(url, {
          method: reqOpts.method ?? (reqOpts.body === undefined ? 'GET' : 'POST'),
          headers,
          body: reqOpts.body === undefined ? undefined : JSON.stringify(reqOpts.body),
          deadlineMs: startMs + timeoutMs,
          maxBytes,
          signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
        });
        const elapsedMs = monoNowMs() - startMs;
        const error = failureOf(reply, url, timeoutMs);
        // a reply cut by a failure is never read as a document: its status alone stays
        if (error) return { url, status: null, contentType: null, text: '', error, elapsedMs };
        const text = reply.body.toString('utf8');
        const doc: HttpDoc = { url, status: reply.status, contentType: reply.contentType, text, elapsedMs };
        const json = tryParsePythonJson(text);
        if (json !== undefined) doc.json = json;
        return doc;
      } catch (e) {
        const elapsedMs = monoNowMs() - startMs;
        const message = e instanceof Error ? e.message : String(e);
        const error =
          e instanceof CrossOriginRedirect
            ? { code: 'BG_E_CROSS_ORIGIN_REDIRECT' as const, message }
            : { code: 'BG_E_CONNECT' as const, message: `could not request ${url} (${message})` };
        return { url, status: null, contentType: null, text: '', error, elapsedMs };
      }
    },
  };
}
