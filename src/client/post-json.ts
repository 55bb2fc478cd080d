// A lean JSON POST over the keep-alive agent, for calls made many times in a row before a level
// (e.g. /tokenize while building prompts), where fetch's per-call overhead adds up.

import http from 'node:http';
import https from 'node:https';
import { keepAliveAgent } from './transport-node-http.js';
import { joinUrl } from './url.js';

export interface JsonAnswer {
  status: number | null;
  json: unknown;
  /** Transport failure description; null when an answer arrived. */
  error: string | null;
}

export function postJson(
  baseUrl: string,
  path: string,
  body: unknown,
  opts: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<JsonAnswer> {
  const url = new URL(joinUrl(baseUrl, path));
  const payload = JSON.stringify(body);
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = lib.request(url, {
      method: 'POST',
      agent: keepAliveAgent(baseUrl),
      headers: {
        ...opts.headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      },
      timeout: opts.timeoutMs ?? 30_000,
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs ?? 30_000} ms`)));
    req.on('error', (e) => resolve({ status: null, json: undefined, error: e.message }));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('error', (e) => resolve({ status: res.statusCode ?? null, json: undefined, error: e.message }));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? null, json, error: null });
      });
    });
    req.end(payload);
  });
}
