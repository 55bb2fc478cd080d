// Validity of a comparison, built on each run's one judgement (results/run-validity.ts, read through
// results/run-validity.ts `validityOf`, never judged again here). A comparison is as valid as its worst
// run, is suspect when matrix configs were skipped, and withholds verdicts for different workloads.

import type { LosslessRecord } from '../metrics/lossless.js';
import { statusOf, type Validity, type ValidityReason } from '../metrics/validity.js';
import type { LoadedRun } from '../results/layout.js';
import { type RunValidity, validityContext } from '../results/run-validity.js';

export type { RunValidity };

/** A matrix configuration that never produced a run, with why (e.g. "checkpoint failed: drifted"). */
export interface SkippedConfig {
  name: string;
  reason: string;
  /** What showed it: the failed findings (expected, found, where) or the server output's crash lines. */
  evidence?: string[];
  /** A config left out for a failed lossless check: its verdict, so the report shows the divergences. */
  lossless?: LosslessRecord | null;
}

export interface ComparisonValidity extends Validity {
  runs: RunValidity[];
  skipped: SkippedConfig[];
}

/** Workloads that share prompt tokens on purpose: a shared prefix, conversations, a trace's hash ids. */
export function workloadShares(run: LoadedRun): boolean {
  return validityContext(run.manifest?.plan, null).workloadShares === true;
}

/** The comparison's own verdict: the worst run, skipped configs, and comparability concerns given by the caller. */
export function judgeComparison(
  runs: readonly RunValidity[],
  skipped: readonly SkippedConfig[],
  extra: readonly ValidityReason[],
): ComparisonValidity {
  const reasons: ValidityReason[] = [];
  for (const r of runs)
    if (r.status !== 'valid')
      reasons.push({
        severity: r.status === 'invalid' ? 'invalid' : 'suspect',
        check: 'run',
        text: `Run ${r.run} is ${r.status}: ${r.reasons
          .filter((x) => x.severity !== 'note')
          .map((x) => x.text)
          .join(' ')}`,
      });
  for (const s of skipped)
    reasons.push({
      severity: 'suspect',
      check: 'skipped',
      text: `Config ${s.name} was skipped: ${s.reason}`,
    });
  reasons.push(...extra);
  return { status: statusOf(reasons), reasons, runs: [...runs], skipped: [...skipped] };
}

/** "INVALID", "SUSPECT", "VALID": the word every format leads with. */
export const statusWord = (s: Validity['status']): string => s.toUpperCase();
