// A JSON POST over the control channel (control-http.ts), for calls made many times in a row before a
// level (/tokenize while prompts are built): however many are asked for at once, they share the
// channel's two connections with the probes and telemetry, so the server's HTTP threads are not
// starved.

import { controlRequest, DEFAULT_MAX_REPLY_BYTES } from './control-http.js';
import { joinUrl } from './url.js';

export interface JsonAnswer {
  status: number | null;
  json: unknown;
  /** Transport failure, timeout or oversize reply; null when an answer arrived. */
  error: string | null;
}

export async function postJson(
  baseUrl: string,
  path: string,
  body: unknown,
  opts: { headers?: Record<string, string>; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<JsonAnswer> {
  const reply = await controlRequest(new URL(joinUrl(baseUrl, path)), {
    method: 'POST',
    headers: opts.headers ?? {},
    body: JSON.stringify(body),
    timeoutMs: opts.timeoutMs ?? 30_000,
    maxBytes: DEFAULT_MAX_REPLY_BYTES,
    signal: opts.signal,
  });
  if (reply.failure !== null) return { status: null, json: undefined, error: reply.failure.message };
  let json: unknown;
  try {
    json = JSON.parse(reply.body.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: reply.status, json, error: null };
}
