// The simulator's tokenizer: one token per whitespace-separated word, so clients can build prompts of an
// exact length and every count the server reports agrees with /tokenize. Generated words come from a
// synthetic syllable vocabulary whose ids round-trip exactly through /detokenize and /tokenize.

const SYLLABLES = [
  'ba',
  'ke',
  'lo',
  'mi',
  'nu',
  'ra',
  'se',
  'ti',
  'vo',
  'zu',
  'da',
  'fe',
  'go',
  'hi',
  'ju',
  'pa',
];
const BASE = SYLLABLES.length;
/** Ids below this are synthetic vocabulary words; other words hash into [VOCAB_SIZE, 2*VOCAB_SIZE). */
export const VOCAB_SIZE = 32768;
const SYL_INDEX = new Map(SYLLABLES.map((s, i) => [s, i]));

/** The synthetic word for a vocabulary id (three or four syllables). */
export function wordForId(id: number): string {
  let n = id % VOCAB_SIZE;
  let w = '';
  for (let i = 0; i < 4; i++) {
    w = SYLLABLES[n % BASE] + w;
    n = Math.floor(n / BASE);
  }
  return w;
}

function idForWord(word: string): number {
  if (word.length === 8) {
    let n = 0;
    let ok = true;
    for (let i = 0; i < 8 && ok; i += 2) {
      const s = SYL_INDEX.get(word.slice(i, i + 2));
      if (s === undefined) ok = false;
      else n = n * BASE + s;
    }
    if (ok && n < VOCAB_SIZE) return n;
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
  return VOCAB_SIZE + (h % VOCAB_SIZE);
}

/** Token ids of a text: one per whitespace-separated word. */
export function tokenize(text: string): number[] {
  const words = text.match(/\S+/g);
  return words ? words.map(idForWord) : [];
}

/** Number of tokens in a text (same rule as tokenize, without building ids). */
export function countTokens(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || (c >= 9 && c <= 13) || c === 160;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

/** Text for token ids: words joined by single spaces (hashed ids map onto the synthetic vocabulary). */
export function detokenize(ids: number[]): string {
  return ids.map(wordForId).join(' ');
}

export interface ChatMessage {
  role: string;
  content: unknown;
}

/** Text of a chat content field (string or OpenAI content parts). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join(' ');
  }
  return '';
}

/**
 * The simulated chat template: `<|role|> content` per message, then `<|assistant|>` as the
 * generation prompt. So prompt tokens = Σ (1 + words of content) + 1.
 */
export function applyChatTemplate(messages: ChatMessage[]): string {
  return messages.map((m) => `<|${m.role}|> ${contentText(m.content)}`).join(' ') + ' <|assistant|>';
}
