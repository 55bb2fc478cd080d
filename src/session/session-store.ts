// The run stores a session opens: every manifest carries the session's facts (plan, versions, the one
// clock anchor, verified target, checkpoint report, --force, tokenizer). Also the run directory kept
// when preparation fails after the checkpoint passed, so its evidence is not lost with the failure.

import type { ClockAnchor } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import { benchgateVersion } from '../core/version.js';
import type { PromptTokenizer } from '../load/tokenizer.js';
import type { Plan } from '../plan/schema.js';
import { createRunStore, type RunStore } from '../results/run-store.js';
import type { GatePassed } from './pass-gate.js';

export interface StoreWhere {
  outDir?: string;
  runDir?: string;
  name?: string;
}

export interface SessionFacts extends GatePassed {
  plan: Plan;
  planPath: string | null;
  secrets: string[];
}

/** A run store whose manifest carries the session's facts. */
export function openSessionStore(
  s: SessionFacts,
  where: StoreWhere,
  anchor: ClockAnchor,
  tok: PromptTokenizer | null,
  notes: { capacityNotes?: string[] } = {},
): RunStore {
  return createRunStore({
    outDir: where.outDir ?? s.plan.output,
    runDir: where.runDir,
    secrets: s.secrets,
    manifest: {
      name: where.name ?? s.plan.name ?? 'bench',
      plan: s.plan,
      planPath: s.planPath,
      versions: {
        benchgate: benchgateVersion(),
        node: process.version,
        os: `${process.platform} ${process.arch}`,
      },
      anchor,
      verifiedTarget: s.checkpoint?.verifiedTarget ?? null,
      checkpoint: s.checkpoint?.report ?? null,
      forced: s.forced,
      tokenizer: tok ? { method: tok.method, detail: tok.detail } : null,
      source: { tool: 'benchgate' },
      startedAt: anchor.wallIso,
      finishedAt: null,
      ...notes,
    },
  });
}

/**
 * Preparation failed after the checkpoint passed: writes a run directory holding the checkpoint and
 * the failure (no level) and returns the error to throw, naming that directory.
 */
export function keepFailedPreparation(
  s: SessionFacts,
  outDir: string,
  anchor: ClockAnchor,
  e: BenchgateError,
): BenchgateError {
  const store = openSessionStore(s, { outDir }, anchor, null);
  store.writeSummary(
    {
      schema: 'benchgate.summary/1',
      runId: store.runId,
      name: s.plan.name ?? 'bench',
      levels: [],
      incomplete: {
        reason: `stopped before any load by an error after the checkpoint: ${e.message} [${e.code}]`,
      },
    },
    s.plan.percentiles,
  );
  store.updateManifest({ finishedAt: new Date().toISOString() });
  store.close();
  return new BenchgateError(e.code, e.message, {
    details: [...e.details, `the checkpoint and this failure are written to ${store.dir}`],
    cause: e,
  });
}
