// `benchgate merge DIR...`: flag parsing and wiring only; the merge lives in src/results/merge.ts.

import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_MAX_SKEW_MS, DEFAULT_MAX_START_LAG_MS, mergeShardRuns } from '../../results/merge.js';
import { recordRuns } from '../../store/record-run.js';
import { action, parsePositive } from '../action.js';
import { noteToStderr } from './store-options.js';

interface MergeFlags {
  out?: string;
  maxSkewMs: string;
  maxStartLagMs: string;
  json?: boolean;
}

export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description(
      'Merge the run directories of the shards of one run (pods of `benchgate k8s`, or local shards) into one run.',
    )
    .argument('<dirs...>', "every shard's run directory")
    .option('--out <dir>', 'parent directory of the merged run (default: the first shard directory’s parent)')
    .option(
      '--max-skew-ms <ms>',
      'largest tolerated clock misplacement between shards; above it the run is suspect',
      String(DEFAULT_MAX_SKEW_MS),
    )
    .option(
      '--max-start-lag-ms <ms>',
      "largest tolerated gap between the shards' first requests of a level (and the common start); above it the level is invalid",
      String(DEFAULT_MAX_START_LAG_MS),
    )
    .option('--json', 'print the merge result as JSON')
    .action(
      action(async (dirs: string[], flags: MergeFlags) => {
        const maxSkewMs = parsePositive('--max-skew-ms', flags.maxSkewMs);
        const maxStartLagMs = parsePositive('--max-start-lag-ms', flags.maxStartLagMs);
        const outDir = flags.out ?? dirname(resolve(dirs[0]!));
        const r = await mergeShardRuns({ dirs, outDir, maxSkewMs, maxStartLagMs });
        await recordRuns([r.runDir], { results: outDir, note: noteToStderr });
        if (flags.json) {
          process.stdout.write(`${JSON.stringify({ runDir: r.runDir, merge: r.merge }, null, 2)}\n`);
          return 0;
        }
        for (const s of r.merge.shards)
          process.stderr.write(
            `shard ${s.index}: ${s.records} records, clock offset ${s.offsetMs.toFixed(3)} ms (drift ${s.driftMs.toFixed(3)}, bound ${s.boundMs.toFixed(3)} ms) against ${s.reference}\n`,
          );
        process.stderr.write(
          `skew bound ${r.merge.skewBoundMs.toFixed(3)} ms (limit ${r.merge.maxSkewMs} ms)${r.merge.suspect ? `: SUSPECT — ${r.merge.reasons.join('; ')}` : ''}\n`,
        );
        process.stdout.write(`${r.runDir}\n`);
        return r.merge.suspect ? 1 : 0;
      }),
    );
}
