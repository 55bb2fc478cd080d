// Speculative-decoding acceptance length of a level: mean tokens produced per verify (target-model) step.
// Sources, best first:
//   1. per-request — Σ output tokens / Σ verify steps over the level's completed measured requests that report
//                   them (SGLang meta_info.spec_verify_ct; llama.cpp timings: predicted_n − 1 −
//                   draft_n_accepted). Exactly this level's requests.
//   2. counters   — deltas of /metrics counters scraped before and after the level:
//                   vLLM: 1 + Δaccepted / Δdrafts (each draft is one verify step yielding accepted + 1 tokens);
//                   else Δgeneration tokens / Δverify steps. Includes warmup and any other traffic in between.
//   3. gauge      — the server's own average-acceptance gauge after the level: a labelled fallback only.

import type { SpecCounters } from '../engines/types.js';
import { outputTokens, type RequestRecord } from '../records/request-record.js';
import type { SpeculativeSummary } from './summary.js';

export function acceptanceFromRecords(completed: readonly RequestRecord[]): SpeculativeSummary | null {
  let tokens = 0;
  let steps = 0;
  let reporting = 0;
  for (const r of completed) {
    if (r.specVerifySteps === null || !(r.specVerifySteps > 0)) continue;
    tokens += outputTokens(r);
    steps += r.specVerifySteps;
    reporting++;
  }
  if (steps === 0) return null;
  const summary: SpeculativeSummary = {
    acceptanceLength: tokens / steps,
    source: 'per-request',
    verifySteps: steps,
  };
  if (reporting < completed.length) {
    summary.note = `${reporting} of ${completed.length} completed requests reported verify steps`;
  }
  return summary;
}

function delta(before: SpecCounters, after: SpecCounters, key: keyof SpecCounters): number | null {
  const a = after[key];
  const b = before[key];
  return typeof a === 'number' && typeof b === 'number' ? a - b : null;
}

const COUNTER_NOTE = 'counter deltas over the level: include warmup and any other traffic to the server';

export function acceptanceFromCounters(
  before: SpecCounters | null,
  after: SpecCounters | null,
): SpeculativeSummary | null {
  if (before && after) {
    const drafts = delta(before, after, 'drafts');
    const accepted = delta(before, after, 'acceptedTokens');
    const draftTokens = delta(before, after, 'draftTokens');
    if (drafts !== null && accepted !== null && drafts > 0 && accepted >= 0) {
      const summary: SpeculativeSummary = {
        acceptanceLength: 1 + accepted / drafts,
        source: 'metrics-counters',
        note: COUNTER_NOTE,
        verifySteps: drafts,
        acceptedTokens: accepted,
      };
      if (draftTokens !== null && draftTokens >= 0) summary.draftTokens = draftTokens;
      return summary;
    }
    const steps = delta(before, after, 'verifySteps');
    const generated = delta(before, after, 'generationTokens');
    if (steps !== null && generated !== null && steps > 0 && generated >= 0) {
      return {
        acceptanceLength: generated / steps,
        source: 'metrics-counters',
        note: COUNTER_NOTE,
        verifySteps: steps,
      };
    }
  }
  const gauge = after?.acceptLengthGauge;
  if (typeof gauge === 'number' && Number.isFinite(gauge) && gauge > 0) {
    return {
      acceptanceLength: gauge,
      source: 'metrics-gauge',
      note: "gauge fallback: the server's own running average, not this level's requests",
    };
  }
  return null;
}

/** The requests' own verify steps first, then counter deltas, then the gauge; null when the level has no speculative data. */
export function speculativeSummary(
  completed: readonly RequestRecord[],
  counters: { before: SpecCounters | null; after: SpecCounters | null } | undefined,
): SpeculativeSummary | null {
  return (
    acceptanceFromRecords(completed) ??
    (counters ? acceptanceFromCounters(counters.before, counters.after) : null)
  );
}
