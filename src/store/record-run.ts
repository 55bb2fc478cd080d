// The small library call `bench`, `run`, `import`, `merge` and `demo` make after their run is written: add
// it to the results store. Recording never fails the run: the run directory is already complete and is the
// truth, so a store that cannot be opened (in use, unusable) is only mentioned, with how to catch up.

import { findRunDirs } from './discover.js';
import { addRoots, addRuns } from './index-runs.js';
import { openStore, storeLocation } from './store.js';

export interface RecordRunOptions {
  /** The results directory the runs were written under (the store's default home). */
  results: string;
  /** Where lines for the user go (stderr). */
  note: (line: string) => void;
  env?: Record<string, string | undefined>;
  /**
   * The run was stopped by Ctrl-C or SIGTERM: the store is not opened (opening and indexing it takes
   * seconds on a busy host, and the user asked to stop now); the note says how to add the run later.
   */
  interrupted?: boolean;
}

/** Adds the runs in `dirs` (run, matrix or results directories) to the store; never throws. */
export async function recordRuns(dirs: readonly string[], opts: RecordRunOptions): Promise<void> {
  // BENCHGATE_STORE=off: the user keeps run directories only (benchgate index can still build a store later)
  if ((opts.env ?? process.env).BENCHGATE_STORE?.toLowerCase() === 'off') return;
  const loc = storeLocation({ results: opts.results }, opts.env);
  if (opts.interrupted) {
    opts.note(
      `benchgate: the interrupted run was not added to the results store ${loc.path} (so the stop is not held up); \`benchgate index ${opts.results}\` adds it.`,
    );
    return;
  }
  try {
    const { db } = await openStore(loc, opts.note);
    try {
      await addRoots(db, loc.roots);
      for (const dir of dirs) {
        const out = await addRuns(db, await findRunDirs(dir));
        for (const f of out.failed) opts.note(`benchgate: the store skipped ${f.dir}: ${f.reason}`);
      }
    } finally {
      db.close();
    }
  } catch (e) {
    opts.note(
      `benchgate: note: the run was not added to the results store ${loc.path} (${e instanceof Error ? e.message : String(e)}); \`benchgate index ${opts.results}\` adds it later.`,
    );
  }
}
