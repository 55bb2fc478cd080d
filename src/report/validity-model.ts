// The validity section every renderer puts first, as plain strings: the comparison's (or single run's)
// status with its reasons, then each run's levels that are not clean, with their evidence (token-count and
// prompt-length disagreements included), then skipped matrix configs. Renderers only add markup.

import type { Validity, ValidityStatus } from '../metrics/validity.js';
import type { Comparison } from './types.js';
import { statusWord } from './validity.js';

export interface ValiditySection {
  status: ValidityStatus;
  /** "Validity: INVALID" */
  headline: string;
  /** One line per reason of the comparison (or of the single run). */
  reasons: string[];
  /** One line per run and level with anything to say: "base c=16: SUSPECT: reason; note". */
  levels: { status: ValidityStatus; text: string }[];
}

const RANK: Record<ValidityStatus, number> = { valid: 0, suspect: 1, invalid: 2 };

export const worstStatus = (...xs: ValidityStatus[]): ValidityStatus =>
  xs.reduce((a, b) => (RANK[b] > RANK[a] ? b : a), 'valid');

const reasonText = (v: Validity) =>
  v.reasons.map((r) => (r.severity === 'note' ? `note: ${r.text}` : r.text));

export function validitySection(cmp: Comparison): ValiditySection {
  const v = cmp.validity;
  const single = cmp.runs.length === 1;
  const reasons = single
    ? [
        ...reasonText(v.runs[0] ?? v).filter((t) => !t.startsWith('Run ')),
        ...v.skipped.map((s) => `Config ${s.name} was skipped: ${s.reason}`),
      ]
    : reasonText(v);
  const levels: ValiditySection['levels'] = [];
  for (const row of cmp.levels) {
    for (const [run, lv] of Object.entries(row.validity)) {
      // the sample-count note is said where it matters, in the cell that reads "p99 n/a (…)"
      const shown = { ...lv, reasons: lv.reasons.filter((r) => r.check !== 'samples') };
      if (shown.reasons.length === 0) continue;
      levels.push({
        status: lv.status,
        text: `${single ? '' : `${run} `}${row.label}: ${statusWord(lv.status)}: ${reasonText(shown).join(' ')}`,
      });
    }
  }
  const own = single ? (v.runs[0]?.status ?? v.status) : v.status;
  const status = v.skipped.length > 0 ? worstStatus(own, 'suspect') : own;
  return {
    status,
    headline: `Validity: ${statusWord(status)}`,
    reasons: reasons.length ? reasons : ['Every check passed on the evidence recorded.'],
    levels,
  };
}

/** The validity of one run at one level, counting the run's own verdict (a forced run is invalid everywhere). */
export function cellValidity(
  cmp: Comparison,
  run: string,
  levelIndex: number,
): { status: ValidityStatus; reasons: string } {
  const rv = cmp.validity.runs.find((r) => r.run === run);
  const lv = cmp.levels[levelIndex]?.validity[run];
  const status = worstStatus(rv?.status ?? 'valid', lv?.status ?? 'valid');
  const texts = [
    ...(rv?.reasons ?? []).filter((r) => r.severity !== 'note' && r.check !== 'levels'),
    ...(lv?.reasons ?? []).filter((r) => r.severity !== 'note'),
  ].map((r) => r.text);
  return { status, reasons: texts.join(' ') };
}
