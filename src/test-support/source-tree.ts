// Test support for the architecture tests: the product sources under src/ (tests and their helpers left
// out), each parsed once with the TypeScript compiler, and the folder each belongs to.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository root (the folder that holds src/). */
export const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** Tests and their helpers (test-support files and folders, the simulator's sim/testing/) are not product code. */
export const isTestCode = (rel: string): boolean =>
  /\.test\.ts$/.test(rel) || /(^|\/)test-support(\.ts$|\/)/.test(rel) || rel.startsWith('src/sim/testing/');

export interface SourceFile {
  rel: string;
  text: string;
  ast: ts.SourceFile;
}

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return listSources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

export const productSources: SourceFile[] = listSources(join(ROOT, 'src'))
  .map((path) => relative(ROOT, path).split('\\').join('/'))
  .filter((rel) => !isTestCode(rel))
  .map((rel) => {
    const text = readFileSync(join(ROOT, rel), 'utf8');
    return { rel, text, ast: ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true) };
  });

/** src/<folder>/… → folder; src/index.ts → (root). */
export function folderOf(rel: string): string {
  const parts = rel.split('/');
  return parts.length === 2 ? '(root)' : parts[1];
}
