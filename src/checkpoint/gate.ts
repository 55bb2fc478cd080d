// The checkpoint as a gate around a benchmark: runs the checks before any load (against the URL the
// benchmark really targets) and re-reads the cheap fingerprint after each level to catch drift.
// `benchgate bench` uses it; the matrix wires the same pieces through its stages.

import { createTargetHttp } from '../client/target-http.js';
import { getAdapter } from '../engines/index.js';
import type { VerifiedTarget } from '../engines/types.js';
import type { ProcessHost } from '../hosts/host.js';
import type { Plan } from '../plan/schema.js';
import { type CheckpointReport, gateFailed } from './finding.js';
import { runCheckpoint, targetHeaders } from './run.js';
import { readFingerprintCheap } from './verified-target.js';

export interface CheckpointOutcome {
  report: CheckpointReport;
  verifiedTarget: VerifiedTarget | null;
}

export interface CheckpointGate {
  beforeLoad: (ctx: { url: string }) => Promise<CheckpointOutcome>;
  afterLevel: () => Promise<AfterLevelValidity>;
}

export function checkpointGate(o: {
  plan: Plan;
  host: ProcessHost;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
  /** Called with the findings before the gate decides (to print the checklist). */
  onReport?: (outcome: CheckpointOutcome, plan: Plan) => void;
}): CheckpointGate {
  let outcome: CheckpointOutcome | null = null;
  let checkedPlan = o.plan;
  return {
    beforeLoad: async ({ url }) => {
      checkedPlan = o.plan.target.url ? o.plan : { ...o.plan, target: { ...o.plan.target, url } };
      outcome = await runCheckpoint({
        plan: checkedPlan,
        host: o.host,
        signal: o.signal,
        onProgress: o.onProgress,
      });
      o.onReport?.(outcome, checkedPlan);
      return outcome;
    },
    afterLevel: async () => {
      const verifiedTarget = outcome?.verifiedTarget;
      if (!outcome || !verifiedTarget) return { valid: true, reasons: [] };
      const r = await checkAfterLevel({
        current: outcome,
        drift: () => checkDrift({ plan: checkedPlan, host: o.host, verifiedTarget }),
        recheck: () =>
          runCheckpoint({ plan: checkedPlan, host: o.host, signal: o.signal, onProgress: o.onProgress }),
      });
      outcome = r.outcome;
      return r.validity;
    },
  };
}

/** A level's validity after the drift check; `endRun` says later levels must not run (and why). */
export interface AfterLevelValidity {
  valid: boolean;
  reasons: string[];
  endRun?: string;
}

/**
 * The drift check after a level, and what follows a drift. The level the drift touched is invalid.
 * A server that restarted (or changed) is checked again in full, so later levels are judged against
 * the server as it is now: when it passes, its new fingerprint replaces the old one and the run goes
 * on; when it fails, it no longer runs the intended configuration and the run ends (`endRun`).
 */
export async function checkAfterLevel(o: {
  current: CheckpointOutcome;
  /** The cheap re-read of the current verified target's fingerprint. */
  drift: () => Promise<{ valid: boolean; reasons: string[] }>;
  recheck: () => Promise<CheckpointOutcome>;
}): Promise<{ validity: AfterLevelValidity; outcome: CheckpointOutcome }> {
  const drift = await o.drift();
  if (drift.valid) return { validity: drift, outcome: o.current };
  const again = await o.recheck();
  if (again.report.ok && again.verifiedTarget) {
    return {
      validity: {
        valid: false,
        reasons: [
          ...drift.reasons,
          'the checkpoint passed again after this level, so later levels are judged against the new fingerprint',
        ],
      },
      outcome: again,
    };
  }
  const failed = gateFailed(again.report.findings).map((f) => f.id);
  const why = `after the drift (${drift.reasons.join('; ')}) the checkpoint failed again: ${failed.join(', ') || 'no verified target'}; later levels would not measure the intended configuration`;
  return {
    validity: { valid: false, reasons: [...drift.reasons, why], endRun: why },
    outcome: o.current,
  };
}

/** Re-reads the cheap parts of a verified target's fingerprint: did the server restart or change? */
export function checkDrift(o: {
  plan: Plan;
  host: ProcessHost;
  verifiedTarget: VerifiedTarget;
}): Promise<{ valid: boolean; reasons: string[] }> {
  const target = o.verifiedTarget;
  return readFingerprintCheap({
    target,
    http: createTargetHttp(target.url, { headers: targetHeaders(o.plan), timeoutMs: 10_000 }),
    adapter: getAdapter(target.engine),
    host: o.host,
  });
}
