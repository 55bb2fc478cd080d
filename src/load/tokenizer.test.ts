import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchgateError } from '../core/errors.js';
import { llamacppTokenizeRequest } from '../engines/llamacpp.js';
import { freeLoopbackPorts } from '../matrix/free-port.js';
import { buildPrompts } from './prompts.js';
import { chooseTokenizer, localTokenizer, type PromptTokenizer } from './tokenizer.js';

/** A real Hugging Face tokenizer.json: word-level model, lower-casing, splitting punctuation from words. */
function writeTokenizerJson(dir: string): string {
  const vocab: Record<string, number> = { '[UNK]': 0 };
  for (const w of ['hello', 'world', 'the', 'gpu', ',', '.']) vocab[w] = Object.keys(vocab).length;
  const path = join(dir, 'tokenizer.json');
  writeFileSync(
    path,
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [],
      normalizer: { type: 'Lowercase' },
      pre_tokenizer: { type: 'Whitespace' },
      post_processor: null,
      decoder: null,
      model: { type: 'WordLevel', vocab, unk_token: '[UNK]' },
    }),
  );
  return path;
}

/** A loopback port with nothing listening, so the server tokenizer probe fails to connect. */
async function closedPortUrl(): Promise<string> {
  const [port] = await freeLoopbackPorts(1); // below the ephemeral range: no port-0 server lands there
  return `http://127.0.0.1:${port}`;
}

describe('local tokenizer.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bg-tok-'));
  const path = writeTokenizerJson(dir);

  it('counts tokens the way the tokenizer splits them (punctuation separate), not by whitespace', async () => {
    const tok = await localTokenizer(path);
    expect(tok.method).toBe('local-tokenizer-json');
    expect(await tok.count('Hello world, the GPU.')).toBe(6);
  });

  it('is chosen when the server has no /tokenize, and prompts reach exact lengths under it', async () => {
    const tok = await chooseTokenizer(await closedPortUrl(), {}, 'm', path);
    expect(tok.method).toBe('local-tokenizer-json');
    const items = await buildPrompts(
      { dataset: 'random', inputTokens: { fixed: 40 }, outputTokens: { fixed: 4 }, seed: 3 },
      3,
      0,
      tok,
    );
    for (const it of items) expect(await tok.count(it.prompt)).toBe(40);
  });

  it('names the plan key and the path when the file is missing or not JSON', async () => {
    await expect(localTokenizer(join(dir, 'nope.json'))).rejects.toThrow(
      /workload\.tokenizer: cannot read tokenizer file ".*nope\.json": it does not exist/,
    );
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ not json');
    await expect(localTokenizer(bad)).rejects.toBeInstanceOf(BenchgateError);
  });
});

/**
 * A /tokenize that behaves like llama-server's: it reads `content` (a `prompt` field is ignored and
 * answers no tokens) and counts BOS when `add_special` is true. One token per word. `zeroAfter` calls,
 * it answers no tokens at all.
 */
async function llamaLikeTokenizeServer(
  zeroAfter = Number.POSITIVE_INFINITY,
): Promise<{ url: string; server: Server }> {
  let calls = 0;
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const o = JSON.parse(body) as { content?: string; add_special?: boolean };
      const words = typeof o.content === 'string' ? (o.content.match(/\S+/g) ?? []) : [];
      const tokens =
        calls++ >= zeroAfter ? [] : [...(o.add_special ? [1] : []), ...words.map((_, i) => 100 + i)];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ tokens }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

describe('server /tokenize', () => {
  it('fails closed when the server counts 0 tokens for a non-empty text (wrong request shape)', async () => {
    const { url, server } = await llamaLikeTokenizeServer();
    try {
      const err = await chooseTokenizer(url, {}, 'm', undefined).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BenchgateError);
      expect((err as BenchgateError).code).toBe('BG_E_TOKENIZER');
      expect((err as Error).message).toMatch(/counted 0 tokens for a non-empty text/);
    } finally {
      server.close();
    }
  });

  it('with the llama.cpp request shape, prompts are exactly the requested length including BOS', async () => {
    const { url, server } = await llamaLikeTokenizeServer();
    try {
      const tok = await chooseTokenizer(url, {}, 'm', undefined, llamacppTokenizeRequest);
      expect(tok.method).toBe('server-tokenize');
      const items = await buildPrompts(
        { dataset: 'random', inputTokens: { fixed: 64 }, outputTokens: { fixed: 4 }, seed: 1 },
        4,
        0,
        tok,
      );
      for (const it of items) {
        expect(it.inputTokens).toBe(64);
        expect(it.prompt.split(' ')).toHaveLength(63);
      }
    } finally {
      server.close();
    }
  });

  it('a 0-token answer while building prompts is an error, not a count', async () => {
    const { url, server } = await llamaLikeTokenizeServer(1);
    try {
      const tok = await chooseTokenizer(url, {}, 'm', undefined, llamacppTokenizeRequest);
      await expect(
        buildPrompts(
          { dataset: 'random', inputTokens: { fixed: 16 }, outputTokens: { fixed: 4 }, seed: 1 },
          1,
          0,
          tok,
        ),
      ).rejects.toMatchObject({ code: 'BG_E_TOKENIZER' });
    } finally {
      server.close();
    }
  });
});

describe('server /tokenize transport', () => {
  it('sends again once when a kept-alive connection is reset, and names the failure when it persists', async () => {
    let calls = 0;
    let resetFrom = 1;
    const server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const n = calls++;
        if (n === resetFrom || n >= 100) return req.socket.destroy();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ tokens: [1, 2, 3] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const tok = await chooseTokenizer(url, {}, 'm', undefined, llamacppTokenizeRequest);
      expect(await tok.count('a b')).toBe(3);
      resetFrom = -1;
      calls = 100;
      await expect(tok.count('a b')).rejects.toThrow(/stopped answering \(.+\)/);
    } finally {
      server.close();
    }
  });
});

describe('prompt builder bounds', () => {
  it('never grows a prompt past twice the target in words, whatever the tokenizer answers', async () => {
    const stuck: PromptTokenizer = { method: 'approximate', detail: 'always 1', count: async () => 1 };
    const [item] = await buildPrompts(
      { dataset: 'random', inputTokens: { fixed: 50 }, outputTokens: { fixed: 4 }, seed: 2 },
      1,
      0,
      stuck,
    );
    expect(item.prompt.split(' ').length).toBeLessThanOrEqual(2 * 50 + 8);
  });
});
