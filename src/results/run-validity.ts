// The one validity judgement of a run: its levels' verdicts (metrics/validity.ts, each made once when the
// level ended and stored in its level file, or judged here for files written before that), the checkpoint,
// the lossless check, an import's requested vs generated output length, and an early end. Computed here
// and nowhere else; validity-file.ts stores it in the run directory (validity.json) and every surface
// (bench's table, report, compare, run, the store, the dashboard, the live view, Pareto) reads it.

import type { VerifiedTarget } from '../engines/types.js';
import type { LevelSummary } from '../metrics/summary.js';
import {
  judgeLevel,
  type LevelValidityContext,
  statusOf,
  type Validity,
  type ValidityReason,
} from '../metrics/validity.js';
import type { Plan } from '../plan/schema.js';
import { levelId, levelLabel } from '../records/level-key.js';
import type { LoadedRun, Manifest } from './layout.js';

export interface RunValidity extends Validity {
  run: string;
  /** Per level (by level id, records/level-key.ts), the level's own verdict. */
  levels: Record<string, Validity & { label: string }>;
}

/** A generated output this far below the requested length on average is SUSPECT (an import's tokens). */
export const SHORT_OUTPUT_SHARE = 0.5;

/** Whether the verified target runs a speculative decoder (speculative.algorithm set to something). */
export function speculativeConfigured(vt: VerifiedTarget | null | undefined): boolean {
  const v = vt?.config?.['speculative.algorithm']?.value;
  return typeof v === 'string' && v !== '' && v.toLowerCase() !== 'none';
}

/** What a level's judgement needs from its run: ignore_eos, a speculative decoder, a sharing workload. */
export function validityContext(
  plan: Plan | undefined,
  vt: VerifiedTarget | null | undefined,
): LevelValidityContext {
  const kind = plan?.workload?.kind;
  return {
    ignoreEos: plan?.workload?.ignore_eos === true,
    speculativeConfigured: speculativeConfigured(vt),
    workloadShares: kind === 'shared_prefix' || kind === 'multi_turn' || kind === 'trace',
  };
}

function checkpointReasons(m: Manifest | null): ValidityReason[] {
  if (!m)
    return [
      { severity: 'suspect', check: 'manifest', text: 'No manifest: how the run was made is unknown.' },
    ];
  if (m.forced)
    return [
      {
        severity: 'invalid',
        check: 'forced',
        text: `Forced past a failed checkpoint (${m.forced.failedFindingIds.join(', ') || 'failed required checks'}): the server did not run the intended configuration.`,
      },
    ];
  if (m.checkpoint && !m.checkpoint.ok) {
    const failed = m.checkpoint.findings.filter((f) => f.required && f.status === 'fail').map((f) => f.id);
    return [
      {
        severity: 'invalid',
        check: 'checkpoint',
        text: `The checkpoint failed (${failed.join(', ') || 'required checks'}).`,
      },
    ];
  }
  if (!m.checkpoint && (m.source?.tool ?? 'benchgate') === 'benchgate')
    return [
      {
        severity: 'note',
        check: 'checkpoint',
        text: 'Checkpoint skipped: the configuration was not verified.',
      },
    ];
  return [];
}

/** A failed required lossless check makes the config invalid; a divergence it does not require, suspect. */
export function losslessReasons(run: Pick<LoadedRun, 'lossless'>): ValidityReason[] {
  const l = run.lossless;
  if (!l || l.isBaseline || !l.comparison) return [];
  const bad = l.comparison.verdict === 'diverges-early' || l.comparison.verdict === 'unknown';
  if (!bad) return [];
  const text = `Lossless check against ${l.baseline}: ${l.comparison.summary}${l.required ? ' (lossless.required)' : ''}.`;
  return [{ severity: l.required && !l.valid ? 'invalid' : 'suspect', check: 'lossless', text }];
}

/** The requested output length the plan states, as a mean (fixed N, or the middle of a uniform range). */
function requestedOutputMean(plan: Plan | undefined): number | null {
  const o = plan?.workload?.output_tokens as { fixed?: number; uniform?: [number, number] } | undefined;
  if (typeof o?.fixed === 'number') return o.fixed;
  if (Array.isArray(o?.uniform)) return (o.uniform[0] + o.uniform[1]) / 2;
  return null;
}

/**
 * An import's outputs against the length its tool was asked for: its records carry only what was
 * generated, so the plan's stated length is the evidence. Far short (no ignore_eos) is SUSPECT.
 */
function importedLength(level: LevelSummary, m: Manifest | null): ValidityReason[] {
  if (!m || (m.source?.tool ?? 'benchgate') === 'benchgate') return [];
  const asked = requestedOutputMean(m.plan);
  const done = level.requests.completed;
  if (asked === null || asked <= 0 || done <= 0) return [];
  const got = (level.throughput.outputTokensPerS * level.windowS) / done;
  if (!Number.isFinite(got) || got >= asked * SHORT_OUTPUT_SHARE) return [];
  return [
    {
      severity: 'suspect',
      check: 'output-length',
      text: `Outputs stopped far short of the requested length: ${Math.round(got)} tokens generated per request on average for ${Math.round(asked)} requested (${m.plan?.workload?.ignore_eos ? 'ignore_eos was not honoured' : 'no ignore_eos: the model stopped early'}); the workload is shorter than planned.`,
    },
  ];
}

/**
 * A level's verdict with one more trial judged: the worse status, the trials' reasons each naming its
 * trial. A trial's sample-count note is left out: the tails are judged on the trials pooled.
 */
function withTrial(
  prev: (Validity & { label: string }) | undefined,
  v: Validity,
  l: LevelSummary,
): Validity & { label: string } {
  if (l.trial === undefined) return { ...v, label: levelLabel(l.level) };
  const own = v.reasons
    .filter((r) => r.check !== 'samples')
    .map((r) => ({ ...r, text: `trial ${l.trial}: ${r.text}` }));
  const reasons = [...(prev?.reasons ?? []), ...own];
  return { status: statusOf(reasons), reasons, label: levelLabel(l.level) };
}

const STATUSES: readonly unknown[] = ['valid', 'suspect', 'invalid'];

/** A judgement as a file may hold it: a known status and a list of reasons with text (else not one). */
export function isValidity(v: unknown): v is Validity {
  const x = v as Validity | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    STATUSES.includes(x.status) &&
    Array.isArray(x.reasons) &&
    x.reasons.every((r) => typeof r?.text === 'string' && typeof r?.check === 'string')
  );
}

/**
 * The level's stored judgement, else (a file written before it was stored, or one whose judgement is
 * not readable: never trusted, judged again) judged from its records.
 */
function levelVerdict(l: LevelSummary, run: LoadedRun, ctx: LevelValidityContext): Validity {
  const base = isValidity(l.judgement) ? l.judgement : judgeLevel(l, run.records, ctx);
  const extra = importedLength(l, run.manifest);
  if (extra.length === 0) return base;
  const reasons = [...base.reasons, ...extra];
  return { status: statusOf(reasons), reasons };
}

/** The run's judgement: every level's verdict, and the run's own reasons before any number. */
export function judgeRun(run: LoadedRun): RunValidity {
  const ctx = validityContext(run.manifest?.plan, run.manifest?.verifiedTarget);
  const levels: RunValidity['levels'] = {};
  for (const l of run.summary.levels) {
    const id = levelId(l.level);
    levels[id] = withTrial(levels[id], levelVerdict(l, run, ctx), l);
  }
  const reasons = [...checkpointReasons(run.manifest), ...losslessReasons(run)];
  if (run.summary.incomplete)
    reasons.push({
      severity: 'suspect',
      check: 'incomplete',
      text: `The run ended early: ${run.summary.incomplete.reason}.`,
    });
  const all = Object.values(levels);
  const bad = all.filter((v) => v.status !== 'valid');
  if (all.length === 0)
    reasons.push({ severity: 'invalid', check: 'levels', text: 'No level was measured.' });
  else if (bad.length > 0) {
    const invalid = bad.filter((v) => v.status === 'invalid');
    reasons.push({
      severity: invalid.length === all.length ? 'invalid' : 'suspect',
      check: 'levels',
      text: `${bad.length} of ${all.length} levels are not valid: ${bad.map((v) => `${v.label} ${v.status}`).join(', ')}.`,
    });
  }
  return { run: run.name, status: statusOf(reasons), reasons, levels };
}

/** The run's own status, without the summary of its levels: what every level of it inherits. */
export function runOwnStatus(reasons: readonly ValidityReason[]): Validity['status'] {
  return statusOf(reasons.filter((r) => r.check !== 'levels'));
}

/** The run's judgement: the one read with it (stored, or judged once at read time), else judged now. */
export function validityOf(run: LoadedRun): RunValidity {
  const v = run.validity ?? judgeRun(run);
  return v.run === run.name ? v : { ...v, run: run.name };
}
