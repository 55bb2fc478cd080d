// Cheap probing helpers shared by adapters: GET a path and return its JSON object only when the
// server answered 2xx with a JSON object (anything else counts as "not this endpoint").

import { isRecord } from './facts.js';
import type { HttpDoc, TargetHttp } from './types.js';

export async function getJsonObject(
  http: TargetHttp,
  path: string,
  timeoutMs?: number,
): Promise<{ doc: HttpDoc; json: Record<string, unknown> | null }> {
  const doc = await http.request(path, { method: 'GET', timeoutMs });
  const ok = doc.status !== null && doc.status >= 200 && doc.status < 300;
  return { doc, json: ok && isRecord(doc.json) ? doc.json : null };
}

/** The first path of `paths` that answers with a JSON object (e.g. new name, then legacy name). */
export async function getFirstJsonObject(
  http: TargetHttp,
  paths: string[],
): Promise<{ path: string; json: Record<string, unknown> } | null> {
  for (const path of paths) {
    const { json } = await getJsonObject(http, path);
    if (json) return { path, json };
  }
  return null;
}

/** `owned_by` of the first model in /v1/models (vLLM says "vllm", SGLang "sglang", llama.cpp "llamacpp"). */
export function modelsOwnedBy(modelsJson: unknown): string | null {
  if (!isRecord(modelsJson) || !Array.isArray(modelsJson.data)) return null;
  const first = modelsJson.data[0];
  return isRecord(first) && typeof first.owned_by === 'string' ? first.owned_by : null;
}

/**
 * GET /v1/models, stored verbatim in `raw` under "/v1/models"; its model entries (objects only), or
 * null when the server did not answer with a JSON object. Every OpenAI-compatible engine serves it.
 */
export async function readModelEntries(
  http: TargetHttp,
  raw: Record<string, unknown>,
): Promise<Record<string, unknown>[] | null> {
  const { json } = await getJsonObject(http, '/v1/models');
  if (!json) return null;
  raw['/v1/models'] = json;
  return Array.isArray(json.data) ? json.data.filter(isRecord) : [];
}
