// Strings that strict JSON and UTF-8 can carry. A JavaScript string may hold an unpaired UTF-16
// surrogate (from a server's "\ud800" escape, say); JSON.stringify writes it as that escape, which jq and
// other strict parsers refuse. What benchgate writes replaces each such half with U+FFFD instead; plan
// text never gets that far (plan/text-safety.ts refuses it at validation).

/** One unpaired surrogate: a high half not followed by a low one, or a low half not preceded by a high one. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** `s` with every unpaired surrogate replaced by U+FFFD. */
export function wellFormed(s: string): string {
  return LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\uFFFD') : s;
}

/** A JSON.stringify replacer that makes every string value and key well formed. */
export function wellFormedReplacer(_key: string, v: unknown): unknown {
  if (typeof v === 'string') return wellFormed(v);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const keys = Object.keys(v);
  if (!keys.some((k) => LONE_SURROGATE.test(k))) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [wellFormed(k), x]));
}
