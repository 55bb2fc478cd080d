// How prompt lengths are measured: the server's own /tokenize endpoint when it has one, else a local
// Hugging Face tokenizer.json named by the plan, else an approximation (one token per whitespace-separated
// word) that results label as such.

import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { postJson } from '../client/post-json.js';
import { BenchgateError } from '../core/errors.js';
import type { TokenizeRequest } from '../engines/types.js';

export interface PromptTokenizer {
  method: 'server-tokenize' | 'local-tokenizer-json' | 'approximate';
  /** Human detail recorded in the manifest. */
  detail: string;
  /** Token count of a prompt (without special tokens). */
  count(text: string): Promise<number>;
}

export function approximateTokenizer(reason: string): PromptTokenizer {
  return {
    method: 'approximate',
    detail: `approximation: one token per whitespace-separated word (${reason})`,
    count: async (text) => {
      const m = text.match(/\S+/g);
      return m ? m.length : 0;
    },
  };
}

function countFrom(json: unknown): number | null {
  if (!json || typeof json !== 'object') return null;
  const o = json as { count?: unknown; tokens?: unknown; input_ids?: unknown };
  if (typeof o.count === 'number') return o.count;
  if (Array.isArray(o.tokens)) return o.tokens.length;
  if (Array.isArray(o.input_ids)) return o.input_ids.length;
  return null;
}

/** How SGLang and vLLM take a tokenize request; adapters with another shape override it (tokenizeRequest). */
export function defaultTokenizeRequest(model: string, text: string): TokenizeRequest {
  return { path: '/tokenize', body: { model, prompt: text, add_special_tokens: false } };
}

export type TokenizeRequestFor = (model: string, text: string) => TokenizeRequest;

const PROBE_TEXT = 'hello world';

/**
 * Probes the server's tokenize endpoint (request shape from the engine adapter) and returns a tokenizer
 * backed by it, or null when the server has no usable endpoint. A non-empty text counted as 0 tokens is an
 * error, never a count: it means the server did not read the request (e.g. llama-server reads `content`,
 * not `prompt`), and trusting it would make the prompt builder grow its prompt without end.
 */
export async function serverTokenizer(
  baseUrl: string,
  model: string,
  headers: Record<string, string> = {},
  requestFor: TokenizeRequestFor = defaultTokenizeRequest,
  signal?: AbortSignal,
): Promise<PromptTokenizer | null> {
  const where = `${baseUrl.replace(/\/\/[^@/]*@/, '//')}${requestFor(model, '').path}`;
  let lastFailure = '';
  const ask = async (text: string): Promise<number | null> => {
    const req = requestFor(model, text);
    // over the control channel: prompts counted in parallel share its two connections, and a kept-alive
    // socket the server closed while idle is retried there on a fresh one
    const doc = await postJson(baseUrl, req.path, req.body, { headers, signal });
    if (doc.status !== 200) {
      lastFailure = doc.error ?? `HTTP ${doc.status}`;
      return null;
    }
    const n = countFrom(doc.json);
    if (n === 0 && text.trim() !== '') {
      throw new BenchgateError(
        'BG_E_TOKENIZER',
        `the server's POST ${where} counted 0 tokens for a non-empty text (${JSON.stringify(text.slice(0, 40))}); ` +
          `it does not read the request ${JSON.stringify(Object.keys(req.body))} as a text to tokenize.`,
      );
    }
    return n;
  };
  const probe = await ask(PROBE_TEXT);
  if (probe === null) return null;
  return {
    method: 'server-tokenize',
    detail: `server POST ${where} (model ${model})`,
    count: async (text) => {
      const n = await ask(text);
      if (n === null)
        throw new BenchgateError(
          'BG_E_TOKENIZER',
          `the server's POST ${where} stopped answering (${lastFailure}).`,
        );
      return n;
    },
  };
}

async function readJsonFile(
  path: string,
  what: string,
  optional: boolean,
): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if (optional) return null;
    const reason =
      (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (e as Error).message;
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `workload.tokenizer: cannot read ${what} "${path}": ${reason}.`,
    );
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `workload.tokenizer: ${what} "${path}" is not valid JSON (${(e as Error).message}).`,
    );
  }
}

/**
 * A tokenizer from a local Hugging Face `tokenizer.json` (and the `tokenizer_config.json` beside it, when
 * present), counted without special tokens, as the server counts a prompt's text.
 */
export async function localTokenizer(path: string): Promise<PromptTokenizer> {
  const json = await readJsonFile(path, 'tokenizer file', false);
  const config =
    (await readJsonFile(join(dirname(path), 'tokenizer_config.json'), 'tokenizer config', true)) ?? {};
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(json as never, config as never);
  } catch (e) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `workload.tokenizer: "${path}" is not a tokenizer.json this version understands (${(e as Error).message}).`,
    );
  }
  return {
    method: 'local-tokenizer-json',
    detail: `local tokenizer ${path}`,
    count: async (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length,
  };
}

/** Server tokenizer when available; else the plan's local tokenizer.json; else the labelled approximation. */
export async function chooseTokenizer(
  baseUrl: string,
  headers: Record<string, string>,
  model: string,
  localTokenizerPath: string | undefined,
  requestFor: TokenizeRequestFor = defaultTokenizeRequest,
  signal?: AbortSignal,
): Promise<PromptTokenizer> {
  const server = await serverTokenizer(baseUrl, model, headers, requestFor, signal);
  if (signal?.aborted)
    throw new BenchgateError('BG_E_ABORTED', 'interrupted while the tokenizer was chosen.');
  if (server) return server;
  if (localTokenizerPath) return localTokenizer(localTokenizerPath);
  return approximateTokenizer('the server has no /tokenize endpoint and no local tokenizer was named');
}
