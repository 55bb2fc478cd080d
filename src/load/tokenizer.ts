// How prompt lengths are measured: the server's own /tokenize endpoint when it has one, else an
// approximation (one token per common English word) that results label as such.

import { postJson } from '../client/post-json.js';

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

/**
 * Probes POST /tokenize ({model, prompt} → {tokens, count}, as SGLang and vLLM answer) and returns a
 * tokenizer backed by it, or null when the server has no usable endpoint.
 */
export async function serverTokenizer(
  baseUrl: string,
  model: string,
  headers: Record<string, string> = {},
): Promise<PromptTokenizer | null> {
  const ask = async (text: string): Promise<number | null> => {
    const doc = await postJson(
      baseUrl,
      '/tokenize',
      { model, prompt: text, add_special_tokens: false },
      { headers },
    );
    if (doc.status !== 200) return null;
    return countFrom(doc.json);
  };
  const probe = await ask('hello world');
  if (probe === null) return null;
  return {
    method: 'server-tokenize',
    detail: `server POST ${baseUrl.replace(/\/\/[^@/]*@/, '//')}/tokenize (model ${model})`,
    count: async (text) => {
      const n = await ask(text);
      if (n === null) throw new Error('the server /tokenize endpoint stopped answering');
      return n;
    },
  };
}

/** Server tokenizer when available; otherwise the labelled approximation. */
export async function chooseTokenizer(
  baseUrl: string,
  headers: Record<string, string>,
  model: string,
  localTokenizerPath: string | undefined,
): Promise<PromptTokenizer> {
  const server = await serverTokenizer(baseUrl, model, headers);
  if (server) return server;
  if (localTokenizerPath) {
    return approximateTokenizer(
      `the server has no /tokenize; local tokenizer.json "${localTokenizerPath}" is not supported yet`,
    );
  }
  return approximateTokenizer('the server has no /tokenize endpoint and no local tokenizer was named');
}
