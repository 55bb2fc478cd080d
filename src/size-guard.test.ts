// Keeps the simulator, the client's hot path, the engine adapters, the metrics and the reports in small
// pieces a reader can hold in mind: no product file in sim/, client/, engines/, metrics/ or report/ over
// 300 lines, no function over 80, measured on the TypeScript syntax tree (function declarations, methods,
// constructors, accessors, and arrow or function expressions given a name).

import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { folderOf, productSources, type SourceFile } from './test-support/source-tree.js';

const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;
const SIZE_GUARDED_FOLDERS = ['sim', 'client', 'engines', 'report', 'metrics'];

interface Measured {
  file: string;
  fn?: string;
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
  const out: Measured[] = [{ file: file.rel, lines: fileLines, limit: MAX_FILE_LINES }];
  const visit = (node: ts.Node, owner: string | null) => {
    const name = functionName(node);
    const qualified = name && owner ? `${owner}.${name}` : name;
    if (qualified)
      out.push({ file: file.rel, fn: qualified, lines: linesOf(file.ast, node), limit: MAX_FUNCTION_LINES });
    const nextOwner = ts.isClassLike(node) && node.name ? node.name.text : (qualified ?? owner);
    ts.forEachChild(node, (child) => visit(child, nextOwner));
  };
  visit(file.ast, null);
  return out;
}

describe('the simulator, the client, the metrics and the reports stay small', () => {
  const all = productSources.filter((f) => SIZE_GUARDED_FOLDERS.includes(folderOf(f.rel))).flatMap(measure);
  const measured = all.filter((m) => m.lines > m.limit);

  it('measures real files and functions', () => {
    // fail closed: a walk that found nothing would pass the limits below
    expect(all.filter((m) => !m.fn).length).toBeGreaterThan(20);
    expect(all.filter((m) => m.fn).length).toBeGreaterThan(200);
    expect(all.find((m) => m.file === 'src/client/sse-scanner.ts' && !m.fn)?.lines).toBeGreaterThan(10);
  });

  it(`has no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES} in ${SIZE_GUARDED_FOLDERS.join('/ and ')}/`, () => {
    const broken = measured.map(
      (m) => `${m.file}${m.fn ? ` ${m.fn}()` : ''}: ${m.lines} lines, over the limit of ${m.limit}`,
    );
    expect(broken).toEqual([]);
  });
});
