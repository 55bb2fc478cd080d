import { describe, expect, it } from 'vitest';
import { applyChatTemplate, countTokens, detokenize, tokenize, wordForId } from './tokenizer.js';

describe('simulator tokenizer', () => {
  it('counts one token per whitespace-separated word, whatever the spacing', () => {
    expect(countTokens('  alpha beta\tgamma\n delta ')).toBe(4);
    expect(tokenize('alpha beta gamma')).toHaveLength(3);
    expect(countTokens('')).toBe(0);
  });

  it('is deterministic: the same text always gives the same ids', () => {
    expect(tokenize('the quick brown fox')).toEqual(tokenize('the quick brown fox'));
    expect(tokenize('fox')).not.toEqual(tokenize('dog'));
  });

  it('round-trips vocabulary ids through detokenize and tokenize', () => {
    const ids = [0, 1, 17, 4095, 32767];
    expect(tokenize(detokenize(ids))).toEqual(ids);
    expect(wordForId(17)).toMatch(/^[a-z]{8}$/);
  });

  it('counts chat prompts as one token per role marker, content words, and the assistant marker', () => {
    const text = applyChatTemplate([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hello there friend' }] },
    ]);
    expect(countTokens(text)).toBe(1 + 2 + 1 + 3 + 1);
  });
});
