// Finds the run directories under a results directory: ordinary runs (<out>/<run-id>/), the configs of a
// matrix (<out>/<matrix-id>/<config>/, beside matrix-state.json) and runs in plain sub-folders. The per-level
// run directories a matrix keeps inside a config (levels/NN/, superseded-*/) are parts of that config's run,
// not runs of their own, and are skipped. Each run gets a short id: its path below the results directory.

import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';

export interface FoundRun {
  /** Absolute run directory. */
  dir: string;
  /** Its path below the results directory, with `/` (e.g. `20261203-101500-bench`, `<matrix-id>/baseline`). */
  id: string;
  /** The matrix directory it belongs to, or null. */
  matrixDir: string | null;
}

const MATRIX_STATE_FILE = 'matrix-state.json';
/** Depth below a results directory searched for runs (results/<group>/<matrix>/<config> at most). */
const MAX_DEPTH = 3;

const isLevelFile = (f: string) => /^level-\d+\.json$/.test(f);

/** A run directory holds a manifest, a summary or a level file (the rule compare uses too). */
export function looksLikeRun(files: readonly string[]): boolean {
  return files.some((f) => f === 'manifest.json' || f === 'summary.json' || isLevelFile(f));
}

const skipped = (name: string) =>
  name === 'levels' ||
  name === 'report' ||
  name === 'node_modules' ||
  name.startsWith('.') ||
  name.startsWith('superseded-');

async function listDir(dir: string): Promise<{ files: string[]; dirs: string[] }> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return {
    files: entries.filter((e) => e.isFile()).map((e) => e.name),
    dirs: entries.filter((e) => e.isDirectory() && !skipped(e.name)).map((e) => e.name),
  };
}

async function walk(dir: string, root: string, idBase: string, depth: number, out: FoundRun[]) {
  const { files, dirs } = await listDir(dir);
  const matrixDir = files.includes(MATRIX_STATE_FILE) ? dir : null;
  for (const name of dirs.sort()) {
    const child = join(dir, name);
    const childList = await listDir(child);
    if (looksLikeRun(childList.files)) {
      const rel = relative(root, child).split(sep).join('/');
      out.push({ dir: child, id: idBase ? `${idBase}/${rel}` : rel, matrixDir });
    } else if (depth < MAX_DEPTH) await walk(child, root, idBase, depth + 1, out);
  }
}

/** Every run directory under `path` (or `path` itself when it is a run), in path order. */
export async function findRunDirs(path: string): Promise<FoundRun[]> {
  const root = resolve(path);
  const st = await stat(root).catch(() => null);
  if (!st?.isDirectory()) return [];
  const { files } = await listDir(root);
  if (looksLikeRun(files)) {
    const parent = resolve(root, '..');
    const parentFiles = (await listDir(parent)).files;
    const matrixDir = parentFiles.includes(MATRIX_STATE_FILE) ? parent : null;
    const id = matrixDir ? `${basename(parent)}/${basename(root)}` : basename(root);
    return [{ dir: root, id, matrixDir }];
  }
  const out: FoundRun[] = [];
  // a matrix directory given directly keeps its own name in its configs' ids
  await walk(root, root, files.includes(MATRIX_STATE_FILE) ? basename(root) : '', 1, out);
  return out;
}
