// The local files a plan names (dataset, trace, tokenizer.json, lossless reference), and the checks that
// need no parser: each exists, is a regular file (not /dev/zero, a directory or a FIFO, which a read
// would never finish or fill memory with) and fits the size bound. Parsing each is session/plan-files.ts's,
// which knows the readers; both run before any checkpoint, request or run directory.

import { stat } from 'node:fs/promises';
import { MAX_PLAN_DATA_FILE_BYTES } from './bounds.js';
import type { PlanPath } from './problem.js';
import type { Plan } from './schema.js';

export type PlanFileKind = 'dataset' | 'trace' | 'tokenizer' | 'reference';

export interface NamedFile {
  path: PlanPath;
  file: string;
  kind: PlanFileKind;
}

/** Every local file the plan names, with the key that names it. */
export function namedFiles(plan: Plan): NamedFile[] {
  const w = plan.workload;
  const out: NamedFile[] = [];
  if (w.dataset !== 'random') out.push({ path: ['workload', 'dataset'], file: w.dataset, kind: 'dataset' });
  if (w.kind === 'trace' && w.trace)
    out.push({ path: ['workload', 'trace', 'path'], file: w.trace.path, kind: 'trace' });
  if (w.tokenizer !== undefined)
    out.push({ path: ['workload', 'tokenizer'], file: w.tokenizer, kind: 'tokenizer' });
  const ref = plan.lossless?.enabled ? plan.lossless.reference : undefined;
  if (ref !== undefined) out.push({ path: ['lossless', 'reference'], file: ref, kind: 'reference' });
  return out;
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** What keeps `file` from being read whole as a plan's data file, or null when nothing does. */
export async function fileShapeProblem(file: string): Promise<string | null> {
  let s: Awaited<ReturnType<typeof stat>>;
  try {
    s = await stat(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `"${file}" does not exist`;
    if (code === 'EACCES' || code === 'EPERM') return `"${file}" may not be read (permission denied)`;
    return `"${file}" could not be read (${code ?? String(e)})`;
  }
  if (s.isDirectory()) return `"${file}" is a directory, expected a file`;
  if (!s.isFile()) {
    const what = s.isFIFO()
      ? 'a named pipe (FIFO)'
      : s.isCharacterDevice() || s.isBlockDevice()
        ? 'a device'
        : s.isSocket()
          ? 'a socket'
          : 'not a regular file';
    return `"${file}" is ${what}, expected a regular file`;
  }
  if (s.size > MAX_PLAN_DATA_FILE_BYTES)
    return `"${file}" is ${mib(s.size)}, over the ${mib(MAX_PLAN_DATA_FILE_BYTES)} a file a plan names may be (it is read whole as one string); cut it`;
  if (s.size === 0) return `"${file}" is empty`;
  return null;
}
