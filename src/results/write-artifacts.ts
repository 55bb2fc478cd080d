// Writes report artifacts (documents, chart SVGs and PNGs) under an --out directory.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { BenchgateError } from '../core/errors.js';

export async function writeArtifacts(
  outDir: string,
  files: readonly { name: string; data: string | Buffer }[],
): Promise<string[]> {
  const root = resolve(outDir);
  const written: string[] = [];
  try {
    for (const f of files) {
      const path = join(root, f.name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, f.data);
      written.push(path);
    }
  } catch (e) {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `Could not write the report to ${outDir}: ${(e as Error).message}.`,
    );
  }
  return written;
}
