// Validity of whole runs and of a comparison, built on the level verdicts of metrics/validity.ts.
// A run is invalid when it was forced past a failed checkpoint (or its checkpoint failed), suspect when some
// of its levels are invalid or suspect, and says so before any number. A comparison is as valid as its worst
// run, is suspect when matrix configs were skipped, and withholds verdicts for different workloads.

import { judgeLevel, statusOf, type Validity, type ValidityReason } from '../metrics/validity.js';
import type { LoadedRun } from '../results/layout.js';
import { levelLabel } from './levels.js';

export interface RunValidity extends Validity {
  run: string;
  /** Per level (by level id), the level's own verdict. */
  levels: Record<string, Validity & { label: string }>;
}

/** A matrix configuration that never produced a run, with why (e.g. "checkpoint failed: drifted"). */
export interface SkippedConfig {
  name: string;
  reason: string;
  /** What showed it: the failed findings (expected, found, where) or the server output's crash lines. */
  evidence?: string[];
}

export interface ComparisonValidity extends Validity {
  runs: RunValidity[];
  skipped: SkippedConfig[];
}

/** Whether the verified target runs a speculative decoder (speculative.algorithm set to something). */
export function speculativeConfigured(run: LoadedRun): boolean {
  const v = run.manifest?.verifiedTarget?.config?.['speculative.algorithm']?.value;
  return typeof v === 'string' && v !== '' && v.toLowerCase() !== 'none';
}

/** Workloads that share prompt tokens on purpose: a shared prefix, conversations, a trace's hash ids. */
export function workloadShares(run: LoadedRun): boolean {
  const kind = run.manifest?.plan?.workload?.kind;
  return kind === 'shared_prefix' || kind === 'multi_turn' || kind === 'trace';
}

function checkpointReasons(run: LoadedRun): ValidityReason[] {
  const m = run.manifest;
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

/**
 * A level's verdict with one more trial judged: the worse status, the trials' reasons each naming its
 * trial. A trial's sample-count note is left out: the tails are judged on the trials pooled.
 */
function withTrial(
  prev: (Validity & { label: string }) | undefined,
  v: Validity,
  l: LoadedRun['summary']['levels'][number],
): Validity & { label: string } {
  if (l.trial === undefined) return { ...v, label: levelLabel(l.level) };
  const own = v.reasons
    .filter((r) => r.check !== 'samples')
    .map((r) => ({ ...r, text: `trial ${l.trial}: ${r.text}` }));
  const reasons = [...(prev?.reasons ?? []), ...own];
  return { status: statusOf(reasons), reasons, label: levelLabel(l.level) };
}

export function judgeRun(
  run: LoadedRun,
  levelId: (l: LoadedRun['summary']['levels'][number]) => string,
): RunValidity {
  const ctx = {
    ignoreEos: run.manifest?.plan?.workload?.ignore_eos === true,
    speculativeConfigured: speculativeConfigured(run),
    workloadShares: workloadShares(run),
  };
  const levels: RunValidity['levels'] = {};
  for (const l of run.summary.levels) {
    const id = levelId(l);
    levels[id] = withTrial(levels[id], judgeLevel(l, run.records, ctx), l);
  }
  const reasons = checkpointReasons(run);
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
