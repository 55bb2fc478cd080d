import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPrompts } from './prompts.js';
import { buildSharedPrefixPrompts } from './shared-prefix.js';
import { approximateTokenizer } from './tokenizer.js';

const tok = approximateTokenizer('test');

describe('shared-prefix prompts', () => {
  const spec = {
    groups: 3,
    prefixTokens: 40,
    suffixTokens: { fixed: 10 },
    outputTokens: { fixed: 4 },
    seed: 2,
  };

  it('share a prefix within a group, differ across groups, and prime each group once', async () => {
    const p = await buildSharedPrefixPrompts(spec, 7, 0, tok);
    expect(p.priming).toHaveLength(3);
    expect(p.measured).toHaveLength(7);
    const head = (s: string) => s.split(' ').slice(0, 30).join(' ');
    expect(head(p.measured[0].prompt)).toBe(head(p.measured[3].prompt));
    expect(head(p.measured[0].prompt)).toBe(head(p.priming[0].prompt));
    expect(head(p.measured[0].prompt)).not.toBe(head(p.measured[1].prompt));
    expect(p.measured[0].prompt).not.toBe(p.measured[3].prompt);
    expect(p.expectedHitRate).toBeGreaterThan(0.7);
    expect(p.expectedHitRate).toBeLessThan(0.9);
    expect(await buildSharedPrefixPrompts(spec, 7, 0, tok)).toEqual(p);
  });

  it('share only within the run: another salt gives other prefixes of the same lengths', async () => {
    const a = await buildSharedPrefixPrompts({ ...spec, salt: 3 }, 7, 0, tok);
    const b = await buildSharedPrefixPrompts({ ...spec, salt: 4 }, 7, 0, tok);
    const head = (s: string) => s.split(' ').slice(0, 30).join(' ');
    expect(head(a.measured[0].prompt)).toBe(head(a.measured[3].prompt));
    expect(head(b.measured[0].prompt)).not.toBe(head(a.measured[0].prompt));
    expect(b.measured.map((x) => x.inputTokens)).toEqual(a.measured.map((x) => x.inputTokens));
  });
});

describe('ShareGPT output lengths', () => {
  it('use the recorded reply length, or the plan when fixed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-sg-'));
    const f = join(dir, 'sg.json');
    const reply = Array.from({ length: 37 }, () => 'word').join(' ');
    writeFileSync(
      f,
      JSON.stringify([
        {
          conversations: [
            { from: 'human', value: 'hello there' },
            { from: 'gpt', value: reply },
          ],
        },
        { conversations: [{ from: 'human', value: 'no reply here' }] },
      ]),
    );
    const base = { dataset: f, inputTokens: { fixed: 100 }, outputTokens: { fixed: 5 }, seed: 1 };
    const rec = await buildPrompts({ ...base, outputLengths: 'recorded' }, 4, 0, tok);
    expect(rec.every((p) => p.prompt === 'hello there')).toBe(true);
    expect(rec.every((p) => p.outputTokens === 37)).toBe(true);
    const fixed = await buildPrompts({ ...base, outputLengths: 'fixed' }, 4, 0, tok);
    expect(fixed.every((p) => p.outputTokens === 5)).toBe(true);
  });
});
