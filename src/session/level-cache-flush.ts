// load.cache: flush — the server's prefix cache emptied before a level through the engine adapter's
// flush, the outcome said as a note and kept with the level's cache evidence. An engine with no way to
// flush, or a server that refused, is said plainly: the level then runs on whatever the cache holds.

import type { CacheFlush } from '../engines/cache-flush.js';
import type { EngineAdapter, TargetHttp } from '../engines/types.js';
import type { ProgressView } from '../load/progress.js';
import type { Plan } from '../plan/schema.js';

export interface FlushContext {
  plan: Plan;
  adapter: EngineAdapter;
  http: TargetHttp;
  progress: ProgressView;
}

/** Flushes before the level when the plan says so; null when it keeps the cache. */
export async function flushBeforeLevel(c: FlushContext, level: string): Promise<CacheFlush | null> {
  if (c.plan.load.cache !== 'flush') return null;
  const flush: CacheFlush = c.adapter.flushPrefixCache
    ? await c.adapter.flushPrefixCache(c.http)
    : {
        flushed: false,
        how: 'none',
        evidence: `the ${c.adapter.name} adapter knows no way to empty this server's prefix cache`,
      };
  c.progress.note(flushNote(level, flush));
  return flush;
}

/** "benchgate: level c=8: prefix cache flushed (POST /flush_cache: HTTP 200 …)". */
export function flushNote(level: string, f: CacheFlush): string {
  const state = f.flushed
    ? 'prefix cache flushed'
    : 'prefix cache NOT flushed, the level runs on what it holds';
  return `benchgate: level ${level}: ${state} (${f.how}: ${f.evidence})${f.hint ? `. ${f.hint}` : ''}`;
}
