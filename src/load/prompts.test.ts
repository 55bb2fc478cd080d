import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRng } from '../core/seeded-random.js';
import { buildPrompts, type PromptSpec, readPromptFile, saltedSeed, sampleLength } from './prompts.js';
import { approximateTokenizer, type PromptTokenizer } from './tokenizer.js';

/** A tokenizer that is not one-token-per-word: every word of 5+ letters counts as two tokens. */
const uneven: PromptTokenizer = {
  method: 'local-tokenizer-json',
  detail: 'test',
  count: async (t) => (t.match(/\S+/g) ?? []).reduce((n, w) => n + (w.length >= 5 ? 2 : 1), 0),
};

describe('random prompts', () => {
  it('hit the exact token length under the tokenizer in use', async () => {
    const items = await buildPrompts(
      { dataset: 'random', inputTokens: { uniform: [20, 200] }, outputTokens: { fixed: 8 }, seed: 5 },
      30,
      0,
      uneven,
    );
    for (const it of items) expect(await uneven.count(it.prompt)).toBe(it.inputTokens);
    // replay the documented draw order (input length, output length, prompt seed) to know each target
    const rng = seededRng(5 * 1_000_003 + 0 * 7919 + 1);
    const targets = items.map(() => {
      const t = sampleLength({ uniform: [20, 200] }, rng);
      sampleLength({ fixed: 8 }, rng);
      rng();
      return t;
    });
    expect(items.map((x) => x.inputTokens)).toEqual(targets);
    expect(items.every((x) => x.outputTokens === 8)).toBe(true);
  });

  it('are reproducible from the seed, differ between levels, and are distinct per request', async () => {
    const spec = { dataset: 'random', inputTokens: { fixed: 50 }, outputTokens: { fixed: 4 }, seed: 9 };
    const tok = approximateTokenizer('test');
    const a = await buildPrompts(spec, 5, 0, tok);
    const b = await buildPrompts(spec, 5, 0, tok);
    const c = await buildPrompts(spec, 5, 1, tok);
    expect(a).toEqual(b);
    expect(a[0].prompt).not.toBe(c[0].prompt);
    expect(new Set(a.map((x) => x.prompt)).size).toBe(5);
    expect(a.every((x) => x.inputTokens === 50)).toBe(true);
  });
});

describe('prompts built while the tokenizer answers out of order', () => {
  it('are the same words whichever tokenizer calls finish first (a replay under load is exact)', async () => {
    const spec: PromptSpec = {
      dataset: 'random',
      inputTokens: { uniform: [20, 200] },
      outputTokens: { fixed: 4 },
      seed: 3,
      salt: 77,
    };
    // the same counts as `uneven`, answered after a delay drawn per call: a busy server's /tokenize
    const delayed = (seed: number): PromptTokenizer => {
      const rng = seededRng(seed);
      return {
        ...uneven,
        count: async (t) => {
          await new Promise((r) => setTimeout(r, Math.floor(rng() * 6)));
          return uneven.count(t);
        },
      };
    };
    const first = await buildPrompts(spec, 24, 0, delayed(1));
    const second = await buildPrompts(spec, 24, 0, delayed(2));
    expect(second.map((x) => x.prompt)).toEqual(first.map((x) => x.prompt));
  });
});

describe('the run salt', () => {
  it('changes every random prompt of a level but none of its lengths, and replays exactly when repeated', async () => {
    const spec: PromptSpec = {
      dataset: 'random',
      inputTokens: { uniform: [20, 60] },
      outputTokens: { fixed: 4 },
      seed: 1,
    };
    const tok = approximateTokenizer('test');
    const a = await buildPrompts({ ...spec, salt: 11 }, 8, 0, tok);
    const again = await buildPrompts({ ...spec, salt: 11 }, 8, 0, tok);
    const b = await buildPrompts({ ...spec, salt: 12 }, 8, 0, tok);
    expect(again).toEqual(a);
    expect(b.map((x) => x.inputTokens)).toEqual(a.map((x) => x.inputTokens));
    for (let i = 0; i < a.length; i++) expect(b[i].prompt).not.toBe(a[i].prompt);
    // no salt is the seed alone, as before salts existed
    expect(await buildPrompts({ ...spec }, 8, 0, tok)).toEqual(
      await buildPrompts({ ...spec, salt: 0 }, 8, 0, tok),
    );
  });

  it('mixes into a seed deterministically and leaves it alone without a salt', () => {
    expect(saltedSeed(123, undefined)).toBe(123);
    expect(saltedSeed(123, 0)).toBe(123);
    expect(saltedSeed(123, 5)).toBe(saltedSeed(123, 5));
    expect(saltedSeed(123, 5)).not.toBe(saltedSeed(123, 6));
    expect(saltedSeed(123, 5)).not.toBe(saltedSeed(124, 5));
  });
});

describe('prompt files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bg-prompts-'));

  it('reads the first human turn of ShareGPT conversations', async () => {
    const f = join(dir, 'sharegpt.json');
    writeFileSync(
      f,
      JSON.stringify([
        {
          conversations: [
            { from: 'human', value: 'What is a GPU?' },
            { from: 'gpt', value: 'A chip.' },
          ],
        },
        { conversations: [{ from: 'gpt', value: 'orphan' }] },
        { conversations: [{ from: 'human', value: 'Explain KV cache.' }] },
      ]),
    );
    expect((await readPromptFile(f)).map((p) => p.prompt)).toEqual(['What is a GPU?', 'Explain KV cache.']);
  });

  it('reads JSONL prompts and names the line of a bad one', async () => {
    const f = join(dir, 'p.jsonl');
    writeFileSync(f, '{"prompt":"one two"}\n{"text":"three"}\n');
    expect((await readPromptFile(f)).map((p) => p.prompt)).toEqual(['one two', 'three']);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"prompt":"ok"}\n{"nope":1}\n');
    await expect(readPromptFile(bad)).rejects.toThrow(/bad\.jsonl:2 has no "prompt"/);
  });

  it('drops file prompts longer than the input cap and counts the rest', async () => {
    const f = join(dir, 'cap.jsonl');
    writeFileSync(f, '{"prompt":"a b c"}\n{"prompt":"a b c d e f g h i j"}\n');
    const items = await buildPrompts(
      { dataset: f, inputTokens: { fixed: 5 }, outputTokens: { fixed: 3 }, seed: 1 },
      4,
      0,
      approximateTokenizer('t'),
    );
    expect(items).toHaveLength(4);
    expect(items.every((x) => x.prompt === 'a b c' && x.inputTokens === 3)).toBe(true);
  });
});
