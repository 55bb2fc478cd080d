// Whether a SGLang server started with this command line and environment runs spec v2 (speculation under
// the overlap scheduler), on the build it is: the same SGLANG_ENABLE_SPEC_V2=0 means spec v1 on 0.5.12
// and nothing on 0.5.14. Each era of the variable is judged; the answer is given only when every era the
// build may be in agrees, else it is unknown with why (an unknown build, a release too close to a change).

import { describeNoValue } from '../core/read-result.js';
import {
  type ChangeSide,
  describeSglangChange,
  parseSglangVersion,
  SPEC_V2_DEFAULT_ON,
  SPEC_V2_ENV_ADDED,
  SPEC_V2_ENV_REMOVED,
  sideOfChange,
} from './sglang-builds.js';

/** Algorithms spec v2 applies to (NEXTN is renamed to EAGLE by SGLang itself). */
export const SPEC_V2_ALGORITHMS = new Set(['EAGLE', 'EAGLE3', 'STANDALONE', 'NEXTN']);

export interface SpecV2Inputs {
  algorithm: unknown;
  /** `--speculative-eagle-topk`; undefined when not given (SGLang then picks it per model). */
  topk: unknown;
  disableOverlap: boolean;
  /** `--enable-beta-spec`, the switch before the variable. */
  betaSpec: boolean;
  /** SGLANG_ENABLE_SPEC_V2 read as a boolean; undefined when unset. */
  env: boolean | undefined;
  /** The server's version, from its live endpoints. */
  version: unknown;
}

export type SpecV2Reading = { value: boolean; why: string } | { unknown: string } | null;

/** The variable's eras: before it existed, opt-in, opt-out (default on), removed. */
const CHANGES = [SPEC_V2_ENV_ADDED, SPEC_V2_DEFAULT_ON, SPEC_V2_ENV_REMOVED] as const;

/** Spec v2 in each era, or null when the command line does not say (topk left to SGLang). */
function inEra(era: number, i: SpecV2Inputs): boolean | null {
  const topk = typeof i.topk === 'number' ? i.topk : null;
  if (era === 0) return i.betaSpec && !i.disableOverlap;
  if (era === 1) return i.env === true;
  // from spec v1's retirement on, the V2 worker always runs, overlapped unless --disable-overlap-schedule;
  // a tree draft (topk > 1) included (its V2 support: 2026-06-03, ac99794e6; arg_groups/speculative_hook.py)
  if (era === 3) return !i.disableOverlap;
  if (i.env === false) return false;
  // while spec v2 was the default, a tree draft (topk > 1) and --disable-overlap-schedule ran spec v1
  if (i.disableOverlap || (topk !== null && topk > 1)) return false;
  return topk === null ? null : true;
}

/** The eras the build may be in: all four for an unknown build, one or two for a known one. */
function possibleEras(sides: ChangeSide[] | null): number[] {
  if (sides === null) return [0, 1, 2, 3];
  return [0, 1, 2, 3].filter((era) =>
    sides.every((side, k) => side === 'uncertain' || (side === 'before' ? era <= k : era > k)),
  );
}

const HISTORY = `SGLANG_ENABLE_SPEC_V2 did nothing before 0.5.4.post1 (${describeSglangChange(SPEC_V2_ENV_ADDED)}), turned spec v2 on until it became the default (${describeSglangChange(SPEC_V2_DEFAULT_ON)}), then off, and is ignored since ${describeSglangChange(SPEC_V2_ENV_REMOVED)}, when only --disable-overlap-schedule turns it off`;

/** Spec v2 for an EAGLE-family server's command line on its build; null when spec v2 does not apply. */
export function specV2OfCommandLine(i: SpecV2Inputs): SpecV2Reading {
  if (typeof i.algorithm !== 'string' || !SPEC_V2_ALGORITHMS.has(i.algorithm.toUpperCase())) return null;
  const version = parseSglangVersion(i.version);
  const sides = version.kind === 'value' ? CHANGES.map((c) => sideOfChange(version.value, c)) : null;
  const outcomes = possibleEras(sides).map((era) => inEra(era, i));
  const build = version.kind === 'value' ? `build ${version.value.text}` : describeNoValue(version);
  if (outcomes.every((o) => o === outcomes[0]) && outcomes[0] !== null)
    return { value: outcomes[0], why: `${build}; ${HISTORY}` };
  if (outcomes.every((o) => o !== null))
    return { unknown: `${HISTORY}; ${build}, so the build decides and it is not known which side it is on` };
  return {
    unknown: `--speculative-eagle-topk is not given (SGLang picks it per model, and topk > 1 runs spec v1); ${build}`,
  };
}
