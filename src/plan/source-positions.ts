// Finds where a plan problem lives in its YAML source: the offset of a value, of a key, or of the
// parent of a missing key, using the node ranges the `yaml` parser keeps (the caller's LineCounter
// turns it into a line and column).

import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node } from 'yaml';
import type { PlanPath, PlanProblem } from './problem.js';

interface Located {
  /** The node of each path step that exists, with the key node that led to it (if a mapping entry). */
  steps: { key: Node | null; value: Node | null }[];
}

function resolveAlias(doc: Document, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

function walk(doc: Document, path: PlanPath): Located {
  const steps: Located['steps'] = [];
  let cur = resolveAlias(doc, doc.contents);
  for (const seg of path) {
    if (isMap(cur)) {
      const pair = cur.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      steps.push({ key: pair.key as Node, value: (pair.value as Node | null) ?? null });
      cur = resolveAlias(doc, pair.value);
    } else if (isSeq(cur) && typeof seg === 'number' && seg < cur.items.length) {
      const item = cur.items[seg] as Node | null;
      steps.push({ key: null, value: item });
      cur = resolveAlias(doc, item);
    } else break;
  }
  return { steps };
}

function startOf(node: Node | null | undefined): number | null {
  return node?.range ? node.range[0] : null;
}

/** The character offset a problem should point at; 0 (the top of the file) when nothing closer exists. */
export function problemOffset(doc: Document, problem: PlanProblem): number {
  const target = problem.anchor === 'parent' ? problem.path.slice(0, -1) : problem.path;
  const { steps } = walk(doc, target);
  const found = steps.length === target.length;
  const last = steps.at(-1);
  if (found && last) {
    if (problem.anchor === 'key' || problem.anchor === 'parent') {
      const at = startOf(last.key) ?? startOf(last.value);
      if (at !== null) return at;
    } else {
      // An empty value (`url:`) has no node of its own; point at its key.
      const at = startOf(last.value) ?? startOf(last.key);
      if (at !== null) return at;
    }
  }
  // Deepest existing ancestor: its key when it has one.
  for (let i = steps.length - 1; i >= 0; i--) {
    const at = startOf(steps[i]!.key) ?? startOf(steps[i]!.value);
    if (at !== null) return at;
  }
  return startOf(doc.contents as Node | null) ?? 0;
}
