// Writes report artifacts (documents, chart SVGs and PNGs) under an --out directory, and finds the font
// directories the PNG renderer needs, so src/report/ never touches the filesystem.

import { existsSync } from 'node:fs';
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

const DEJAVU_DIRS = [
  '/usr/share/fonts/truetype/dejavu',
  '/usr/share/fonts/dejavu',
  '/usr/local/share/fonts/dejavu',
];

/** DejaVu font directories present on this machine, for chart PNGs (CI installs fonts-dejavu-core). */
export function chartFontDirs(): string[] {
  return DEJAVU_DIRS.filter((d) => existsSync(d));
}
