// Which runs are running now: a run directory is discoverable from the moment its manifest is written
// (before any load is sent), and counts as live while its manifest has no finishedAt and one of its files
// changed within the idle limit (a killed run stops changing and drops out; the store lists it as
// incomplete). Matrix levels (<config>/levels/NN/) are runs of their own while they are measured.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A run whose files have not changed for this long is not shown as live. */
export const LIVE_IDLE_LIMIT_S = 300;
const MAX_DEPTH = 5;
const MAX_DIRS = 5000;

function isLive(dir: string, nowMs: number, idleLimitS: number): boolean {
  let manifest: { finishedAt?: string | null };
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return false;
  }
  if (manifest.finishedAt) return false;
  const changed = ['manifest.json', 'requests.jsonl'].map((f) => {
    try {
      return statSync(join(dir, f)).mtimeMs;
    } catch {
      return 0;
    }
  });
  return nowMs - Math.max(...changed) < idleLimitS * 1000;
}

/** Live run directories under the given results directories, in path order. */
export function findLiveRuns(roots: readonly string[], idleLimitS = LIVE_IDLE_LIMIT_S): string[] {
  const out: string[] = [];
  const now = Date.now();
  let seen = 0;
  const walk = (dir: string, depth: number) => {
    if (seen++ > MAX_DIRS) return;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    // a matrix config's assembled run (beside its levels/) is not measured itself: its levels are
    const assembled = entries.some((e) => e.isDirectory() && e.name === 'levels');
    const hasManifest = entries.some((e) => e.isFile() && e.name === 'manifest.json');
    if (!assembled && hasManifest && isLive(dir, now, idleLimitS)) out.push(dir);
    if (depth >= MAX_DEPTH) return;
    for (const e of entries)
      if (
        e.isDirectory() &&
        !e.name.startsWith('.') &&
        e.name !== 'node_modules' &&
        !e.name.startsWith('superseded-')
      )
        walk(join(dir, e.name), depth + 1);
  };
  for (const r of roots) walk(r, 0);
  return out.sort();
}
