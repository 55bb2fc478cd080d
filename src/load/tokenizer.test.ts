import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchgateError } from '../core/errors.js';
import { buildPrompts } from './prompts.js';
import { chooseTokenizer, localTokenizer } from './tokenizer.js';

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
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
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
