// YAML features a plan has no use for and that hide what a plan says: explicit tags beyond the plain
// core types (`!!python/object`, `!!binary`, `!custom`), which other loaders turn into objects or code;
// and the key a duplicate-key error is about, which the parser's message does not name.

import { type Document, isPair, isScalar, type Node, visit } from 'yaml';

/** Tags that only restate a plain YAML value; every other explicit tag is refused. */
const PLAIN_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`),
);

export interface SourceProblem {
  offset: number;
  message: string;
}

/** Where the tag written before a value starts in `text` (the value's own offset when none is found). */
function tagStart(text: string, valueOffset: number): number {
  let i = text.lastIndexOf('!', valueOffset - 1);
  while (i > 0 && text[i - 1] === '!') i--;
  return i >= 0 ? i : valueOffset;
}

/** Every node carrying an explicit tag other than a plain core one, with where its tag starts. */
export function tagProblems(doc: Document, text: string): SourceProblem[] {
  const out: SourceProblem[] = [];
  visit(doc, (_key, node) => {
    const n = node as Node;
    if (n && typeof n === 'object' && 'tag' in n && typeof n.tag === 'string' && !PLAIN_TAGS.has(n.tag)) {
      const tag = n.tag.replace(/^tag:yaml\.org,2002:/, '!!');
      out.push({
        offset: tagStart(text, n.range?.[0] ?? 0),
        message: `YAML tag ${tag} is not allowed in a plan; write a plain value (string, number, boolean, list or mapping)`,
      });
    }
  });
  return out;
}

/** The key (with its enclosing keys, e.g. target.url) whose repetition starts at `offset`, or null. */
export function duplicateKeyAt(doc: Document, offset: number): string | null {
  let name: string | null = null;
  visit(doc, {
    Pair(_key, pair, path) {
      if (name === null && isPair(pair) && isScalar(pair.key) && pair.key.range?.[0] === offset) {
        const outer = path
          .filter((p) => isPair(p) && isScalar(p.key))
          .map((p) => String((p as { key: { value: unknown } }).key.value));
        name = [...outer, String(pair.key.value)].join('.');
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return name;
}
