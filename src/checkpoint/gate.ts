// The checkpoint as a gate around a benchmark: runs the checks before any load (against the URL the
// benchmark really targets) and re-reads the cheap fingerprint after each level to catch drift.
// `benchgate bench` uses it; the matrix wires the same pieces through its stages.

import { createTargetHttp } from '../client/target-http.js';
import { getAdapter } from '../engines/index.js';
import type { VerifiedTarget } from '../engines/types.js';
import type { ProcessHost } from '../hosts/host.js';
import type { Plan } from '../plan/schema.js';
import type { CheckpointReport } from './finding.js';
import { runCheckpoint, targetHeaders } from './run.js';
import { readFingerprintCheap } from './verified-target.js';

export interface CheckpointOutcome {
  report: CheckpointReport;
  verifiedTarget: VerifiedTarget | null;
}

export interface CheckpointGate {
  beforeLoad: (ctx: { url: string }) => Promise<CheckpointOutcome>;
  afterLevel: () => Promise<{ valid: boolean; reasons: string[] }>;
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
      const target = outcome?.verifiedTarget;
      if (!target) return { valid: true, reasons: [] };
      return checkDrift({ plan: checkedPlan, host: o.host, verifiedTarget: target });
    },
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
