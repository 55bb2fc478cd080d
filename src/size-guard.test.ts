// Keeps every product folder of src/ in pieces a reader can hold in mind: no file over 300 lines, no
// function over 80, measured on the TypeScript syntax tree (function declarations, methods, constructors,
// accessors, and arrow or function expressions given a name). The few places where size is the honest
// shape are allow-listed with the reason beside them; an entry that no longer exceeds its limit fails too,
// so the list cannot outlive what it excuses.

import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { folderOf, productSources, type SourceFile } from './test-support/source-tree.js';

const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;

/** Where a long file or function is the honest shape: `src/…/file.ts` or `src/…/file.ts name()`, and why. */
const ALLOWED: Record<string, string> = {
  'src/plan/schema.ts':
    'the plan schema: one zod declaration per plan key with its bounds and message, read top to bottom as the plan reference',
};

interface Measured {
  /** `src/…/file.ts` for the file, `src/…/file.ts name()` for a function in it. */
  key: string;
  lines: number;
  limit: number;
}

const linesOf = (ast: ts.SourceFile, node: ts.Node) =>
  ast.getLineAndCharacterOfPosition(node.getEnd()).line -
  ast.getLineAndCharacterOfPosition(node.getStart()).line +
  1;

/** Name of a function-like node: declarations and methods by their name, arrows and function expressions by what they are assigned to. */
function functionName(node: ts.Node): string | null {
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node)) &&
    node.name
  )
    return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const parent = node.parent;
    if (
      (ts.isVariableDeclaration(parent) ||
        ts.isPropertyAssignment(parent) ||
        ts.isPropertyDeclaration(parent)) &&
      parent.initializer === node
    )
      return parent.name.getText();
  }
  return null;
}

/** The file's length and every named function's, each with its limit. */
function measure(file: SourceFile): Measured[] {
  const fileLines = file.text.split('\n').length - (file.text.endsWith('\n') ? 1 : 0);
  const out: Measured[] = [{ key: file.rel, lines: fileLines, limit: MAX_FILE_LINES }];
  const visit = (node: ts.Node, owner: string | null) => {
    const name = functionName(node);
    const qualified = name && owner ? `${owner}.${name}` : name;
    if (qualified)
      out.push({
        key: `${file.rel} ${qualified}()`,
        lines: linesOf(file.ast, node),
        limit: MAX_FUNCTION_LINES,
      });
    const nextOwner = ts.isClassLike(node) && node.name ? node.name.text : (qualified ?? owner);
    ts.forEachChild(node, (child) => visit(child, nextOwner));
  };
  visit(file.ast, null);
  return out;
}

const describeOver = (m: Measured) => `${m.key}: ${m.lines} lines, over the limit of ${m.limit}`;

describe('every product folder stays small', () => {
  const all = productSources.flatMap(measure);
  const over = all.filter((m) => m.lines > m.limit);
  const overKeys = new Set(over.map((m) => m.key));

  it('measures real files and functions in every folder of src/', () => {
    // fail closed: a walk that found nothing would pass the limits below
    const folders = new Set(productSources.map((f) => folderOf(f.rel)));
    for (const folder of ['bench', 'checkpoint', 'cli', 'client', 'core', 'matrix', 'plan', 'session', 'sim'])
      expect(folders).toContain(folder);
    expect(all.filter((m) => !m.key.endsWith('()')).length).toBeGreaterThan(150);
    expect(all.filter((m) => m.key.endsWith('()')).length).toBeGreaterThan(1000);
    expect(all.find((m) => m.key === 'src/client/sse-scanner.ts')?.lines).toBeGreaterThan(10);
  });

  it(`has no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES} outside the allow-list`, () => {
    const listed = new Set(Object.keys(ALLOWED));
    expect(over.filter((m) => !listed.has(m.key)).map(describeOver)).toEqual([]);
  });

  it('lists nothing that is back within its limit (remove such an entry)', () => {
    const stale = Object.keys(ALLOWED).filter((key) => !overKeys.has(key));
    expect(stale).toEqual([]);
  });

  it('gives a reason for every allow-list entry', () => {
    for (const [key, why] of Object.entries(ALLOWED)) expect(why.length, key).toBeGreaterThan(20);
  });
});
