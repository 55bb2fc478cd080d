// Which SGLang release a server runs, and what SGLANG_ENABLE_SPEC_V2 means on it. The variable did
// nothing before 0.5.4.post1, opted in to spec v2 (the overlap scheduler under EAGLE-family speculation)
// until 2026-04-29, opted out after spec v2 became the default, and is ignored since 2026-06-11. Releases
// after 2025-12-29 take their version from git tags (setuptools-scm) the history at hand lacks, so each
// change is placed by the releases known to be on either side of it (nightly wheels name the tag they
// follow, docs name released tags) and a release in between is "uncertain": a rule is not applied to it.

import { type ReadResult, readUnknown, readValue } from '../core/read-result.js';

export interface SglangVersion {
  /** [major, minor, patch, post] */
  parts: [number, number, number, number];
  /** Build date of a nightly (`0.5.12.dev20260509+g096ad02b0`), `YYYY-MM-DD`; null for a release. */
  devDate: string | null;
  text: string;
}

/** `0.5.11`, `v0.5.10.post1`, `0.5.10rc0`, `0.5.12.dev20260509+g096ad02b0`. */
export function parseSglangVersion(text: unknown): ReadResult<SglangVersion> {
  if (typeof text !== 'string' || text.trim() === '')
    return readUnknown('the server did not say its version');
  const t = text.trim();
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:\.post(\d+)|rc\d+)?(?:\.dev(\d{8})?\d*)?(?:\+\S*)?$/.exec(t);
  if (!m) return readUnknown(`version "${t}" is not in a form SGLang prints`);
  const dev = m[5];
  return readValue({
    parts: [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0)],
    devDate: dev ? `${dev.slice(0, 4)}-${dev.slice(4, 6)}-${dev.slice(6, 8)}` : null,
    text: t,
  });
}

/** A change on SGLang's main branch, with the releases known to lack it and to carry it. */
export interface SglangChange {
  date: string;
  commit: string;
  pr: string;
  /** The last release known not to carry the change (its post releases included). */
  lastWithout: [number, number, number, number];
  /** The first release known to carry it; releases between the two are uncertain. */
  firstWith: [number, number, number, number];
}

/** `SGLANG_ENABLE_SPEC_V2` added (it replaced `--enable-beta-spec`); version bumps put it in 0.5.4.post1. */
export const SPEC_V2_ENV_ADDED: SglangChange = {
  date: '2025-10-26',
  commit: '8491c794a',
  pr: '#12113',
  lastWithout: [0, 5, 4, 0],
  firstWith: [0, 5, 4, 1],
};

/** "Use spec v2 by default": v0.5.10.post1 was out by 2026-04-11, the nightlies after v0.5.11 by 05-09. */
export const SPEC_V2_DEFAULT_ON: SglangChange = {
  date: '2026-04-29',
  commit: '79dbfe450',
  pr: '#21062',
  lastWithout: [0, 5, 10, 99],
  firstWith: [0, 5, 12, 0],
};

/** "Retire Spec V1" removed the variable: v0.5.12 was out by 2026-05-18, the 0.5.14 nightlies by 06-18. */
export const SPEC_V2_ENV_REMOVED: SglangChange = {
  date: '2026-06-11',
  commit: 'c0480a88b',
  pr: '#27964',
  lastWithout: [0, 5, 12, 99],
  firstWith: [0, 5, 14, 0],
};

export type ChangeSide = 'before' | 'after' | 'uncertain';

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Whether `v` carries `change`: a nightly by its build date, a release by the releases around the change. */
export function sideOfChange(v: SglangVersion, change: SglangChange): ChangeSide {
  if (v.devDate !== null) {
    if (v.devDate < change.date) return 'before';
    return v.devDate > change.date ? 'after' : 'uncertain';
  }
  if (compare(v.parts, change.lastWithout) <= 0) return 'before';
  return compare(v.parts, change.firstWith) >= 0 ? 'after' : 'uncertain';
}

/** `2026-04-29 (79dbfe450, #21062)` for a finding. */
export function describeSglangChange(change: SglangChange): string {
  return `${change.date} (${change.commit}, ${change.pr})`;
}
