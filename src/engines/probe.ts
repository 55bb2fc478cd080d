// Cheap probing helpers shared by adapters: GET a path and return its JSON object only when the
// server answered 2xx with a JSON object (anything else counts as "not this endpoint").

import { tryParsePythonJson } from '../core/python-json.js';
import { isRecord, setFact } from './facts.js';
import type { ConfigFacts, HttpDoc, TargetHttp } from './types.js';

/** A JSON object body cut mid-way (a paste, a proxy limit): what was salvaged and where it stopped. */
export interface TruncatedBody {
  /** Characters received. */
  receivedChars: number;
  /** The last field started, dropped because its value may be cut (null when none was started). */
  droppedKey: string | null;
}

/** Index of the last comma at the top level of the object starting at `start` (outside strings); -1 if none. */
function lastTopLevelComma(text: string, start: number): number {
  let depth = 0;
  let last = -1;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    } else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') depth--;
    else if (ch === ',' && depth === 1) last = i;
  }
  return last;
}

/**
 * The complete fields of a JSON object body that ends before its closing brace: everything before
 * the last top-level comma (the field after it may be cut: `"tp_size": 1` of `16`). Null when the
 * text is not the start of an object, or is complete.
 */
export function salvageTruncatedObject(
  text: string,
): { json: Record<string, unknown>; truncated: TruncatedBody } | null {
  const start = text.search(/\S/);
  if (start < 0 || text[start] !== '{' || tryParsePythonJson(text) !== undefined) return null;
  const comma = lastTopLevelComma(text, start);
  const head = comma >= 0 ? tryParsePythonJson(`${text.slice(start, comma)}}`) : {};
  if (!isRecord(head)) return null;
  const rest = text.slice(comma >= 0 ? comma + 1 : start + 1);
  const key = /^\s*"((?:[^"\\]|\\.)*)"?/.exec(rest);
  return {
    json: head,
    truncated: { receivedChars: text.length, droppedKey: key && key[1] !== '' ? key[1] : null },
  };
}

/**
 * GET `path`: its JSON object when the server answered 2xx with one. A 2xx body that is a JSON object
 * cut mid-way gives its complete fields and `truncated` (callers record that the rest is unknown).
 */
export async function getJsonObject(
  http: TargetHttp,
  path: string,
  timeoutMs?: number,
): Promise<{ doc: HttpDoc; json: Record<string, unknown> | null; truncated: TruncatedBody | null }> {
  const doc = await http.request(path, { method: 'GET', timeoutMs });
  const ok = doc.status !== null && doc.status >= 200 && doc.status < 300;
  if (ok && isRecord(doc.json)) return { doc, json: doc.json, truncated: null };
  const salvaged = ok && doc.json === undefined ? salvageTruncatedObject(doc.text) : null;
  return salvaged ? { doc, ...salvaged } : { doc, json: null, truncated: null };
}

/** Records that the body of `path` was truncated, as `<engine>.truncated_body` (read by the config check). */
export function noteTruncatedBody(
  facts: ConfigFacts,
  engine: string,
  path: string,
  truncated: TruncatedBody | null,
): void {
  if (!truncated) return;
  const after = truncated.droppedKey ? ` from field "${truncated.droppedKey}" on` : '';
  setFact(
    facts,
    `${engine}.truncated_body`,
    `GET ${path} was truncated after ${truncated.receivedChars} characters; the complete fields were read, the rest${after} is unknown`,
    `GET ${path}`,
  );
}

/** The first path of `paths` that answers with a JSON object (e.g. new name, then legacy name). */
export async function getFirstJsonObject(
  http: TargetHttp,
  paths: string[],
): Promise<{ path: string; json: Record<string, unknown>; truncated: TruncatedBody | null } | null> {
  for (const path of paths) {
    const { json, truncated } = await getJsonObject(http, path);
    if (json) return { path, json, truncated };
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
