// Which llama.cpp build a server runs, and the rules about llama-server that hold only for some builds.
// A build is `b<N>-<commit>` (`/props` build_info, `system_fingerprint`), `build: N (commit)` or `build N
// (commit)` in the log, `version: N (commit)` from --version; N is `git rev-list --count HEAD` of the tree
// it was built from (cmake/build-info.cmake), so a fork's count can drift from upstream's by its own
// commits, and a tree built without git says `b0-unknown`. A rule is applied only to builds clearly on
// one side of the upstream commit that changed it; near it, or for an unknown build, it is not applied.

import { type ReadResult, readUnknown, readValue } from '../core/read-result.js';

export interface LlamacppBuild {
  number: number;
  commit: string | null;
  /** The build as the server printed it. */
  text: string;
}

const BUILD_FORMS: readonly RegExp[] = [
  /^b(\d+)-([0-9a-f]{6,40}|unknown)\b/,
  /\b(?:build|version):? (\d+) \(([0-9a-f]{6,40}|unknown)\)/,
];

/** The build number and commit of `text`, or unknown with why (absent, unfamiliar, built without git metadata). */
export function parseLlamacppBuild(text: unknown): ReadResult<LlamacppBuild> {
  if (typeof text !== 'string' || text.trim() === '') return readUnknown('the server did not say its build');
  const t = text.trim();
  for (const re of BUILD_FORMS) {
    const m = re.exec(t);
    if (!m) continue;
    const number = Number(m[1]);
    if (number === 0)
      return readUnknown(`build "${t}" was compiled without git metadata, so its number says nothing`);
    return readValue({ number, commit: m[2] === 'unknown' ? null : m[2], text: t });
  }
  return readUnknown(`build "${t}" is not in a form llama.cpp prints (b<N>-<commit>)`);
}

/** A change in llama-server's behaviour, located at the upstream commit that made it. */
export interface BuildChange {
  /** Upstream commit count of the change (`git rev-list --count <commit>`). */
  buildNumber: number;
  commit: string;
  /** First release tag carrying it, its date and pull request. */
  tag: string;
  date: string;
  pr: string;
}

/**
 * Builds this close to a change are not judged: a fork's count (or a build between the commit and its
 * release tag) may fall on either side.
 */
export const UNCERTAIN_BUILDS = 25;

/**
 * `-md` alone stops speculating: common/speculative.cpp used to enable the draft model when one was
 * loaded and no draft type was named ("draft model is specified but 'draft' speculative type is not
 * explicitly enabled - enabling it", and before b9115 unconditionally); "speculative : fix n_outputs_max
 * and remove draft-simple auto-enable" removed that, so from here `-md` needs `--spec-type draft-simple`.
 */
export const DRAFT_MODEL_NEEDS_SPEC_TYPE: BuildChange = {
  buildNumber: 9464,
  commit: '5dcb71166',
  tag: 'b9474',
  date: '2026-06-01',
  pr: '#23988',
};

/**
 * Drafts accepted are reported from here ("server : include speculative decoding stats when
 * timings_per_token is enabled"): `timings.draft_n` / `draft_n_accepted` in the final stream event and the
 * per-request log line `draft acceptance rate = …`. Before it a draft model runs (/slots `speculative:
 * true`) but only the debug line `accepted N/M draft tokens` (with -v) says what it accepted.
 */
export const DRAFTS_ACCEPTED_REPORTED: BuildChange = {
  buildNumber: 4984,
  commit: '5d0167026',
  tag: 'b4984',
  date: '2025-03-28',
  pr: '#12603',
};

/** `--spec-type` exists from here ("spec : add self-speculative decoding", `--spec-draftless` renamed). */
export const SPEC_TYPE_FLAG_ADDED: BuildChange = {
  buildNumber: 7864,
  commit: '72d3b1898',
  tag: 'b7869',
  date: '2026-01-28',
  pr: '#18471',
};

/** Speculative types get their current names (`draft-simple`, `ngram-mod`; before: `draft`, `ngram_mod`). */
export const SPEC_TYPES_RENAMED: BuildChange = {
  buildNumber: 9131,
  commit: '634275fbb',
  tag: 'b9146',
  date: '2026-05-13',
  pr: '#22964',
};

/** `--spec-draft-n-max` (`--draft-max`) defaults to 3 from here ("llama : MTP clean-up"); 16 before. */
export const DRAFT_N_MAX_DEFAULT_3: BuildChange = {
  buildNumber: 9235,
  commit: 'd14ce3dab',
  tag: 'b9247',
  date: '2026-05-19',
  pr: '#23269',
};

export type BuildSide = 'before' | 'after' | 'uncertain';

/** Whether `build` has `change`: clearly before it, clearly after it, or too close to say. */
export function sideOf(build: LlamacppBuild, change: BuildChange): BuildSide {
  if (build.number >= change.buildNumber + UNCERTAIN_BUILDS) return 'after';
  if (build.number < change.buildNumber - UNCERTAIN_BUILDS) return 'before';
  return 'uncertain';
}

/** `b9474 (2026-06-01, commit 5dcb71166, #23988)` for a finding. */
export function describeChange(change: BuildChange): string {
  return `${change.tag} (${change.date}, commit ${change.commit}, ${change.pr})`;
}
