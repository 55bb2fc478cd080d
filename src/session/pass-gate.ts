// The checkpoint gate of a session: called once before any load; failed required checks stop the run
// (BG_E_CHECK_FAILED) unless --force, which is noted and recorded in the manifest.

import { gateFailed } from '../checkpoint/finding.js';
import { BenchgateError } from '../core/errors.js';
import type { ProgressView } from '../load/progress.js';
import type { BeforeLoadResult, OpenSessionOptions } from './session-types.js';

export interface GatePassed {
  checkpoint: BeforeLoadResult | null;
  forced: { failedFindingIds: string[] } | null;
}

/** Runs the checkpoint gate; throws BG_E_CHECK_FAILED on failed required checks unless forced. */
export async function passGate(opts: OpenSessionOptions, progress: ProgressView): Promise<GatePassed> {
  if (!opts.beforeLoad) return { checkpoint: null, forced: null };
  const checkpoint = await opts.beforeLoad({ url: opts.url });
  if (checkpoint.report.ok) return { checkpoint, forced: null };
  const failed = gateFailed(checkpoint.report.findings).map((f) => f.id);
  if (!opts.force) {
    throw new BenchgateError(
      'BG_E_CHECK_FAILED',
      `required checkpoint checks failed, so no load was sent (use --force to run anyway).`,
      { details: failed.map((id) => `failed: ${id}`) },
    );
  }
  progress.note(`benchgate: running despite failed required checks (--force): ${failed.join(', ')}`);
  return { checkpoint, forced: { failedFindingIds: failed } };
}
