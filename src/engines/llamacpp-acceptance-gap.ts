// Why a llama.cpp server gave no acceptance figure: builds before b4984 run a draft model but report no
// drafts accepted (no timings.draft_n_accepted, no llamacpp:spec_decode_* counters, no per-request log
// line). Named with the build and what the user can do, so a fail-closed finding says why.

import { DRAFTS_ACCEPTED_REPORTED, describeChange, parseLlamacppBuild, sideOf } from './llamacpp-builds.js';
import type { AcceptanceGap, ConfigFacts } from './types.js';

const LOOKED_AT =
  'the smoke request had no timings.draft_n_accepted, GET /metrics no llamacpp:spec_decode_* counters, and no log named under expect.logs gave an acceptance line';

/** What is missing and what to do, for an acceptance that no source gave. */
export function llamacppAcceptanceGap(facts: ConfigFacts): AcceptanceGap {
  const slots = facts['llamacpp.speculative']?.value;
  const running =
    slots === true ? '; GET /slots says speculative: true on every slot, so the draft model does run' : '';
  const version = facts.engine_version?.value;
  const build = parseLlamacppBuild(version);
  if (build.kind === 'value' && sideOf(build.value, DRAFTS_ACCEPTED_REPORTED) === 'before') {
    return {
      found: `unknown: build ${build.value.text} does not report drafts accepted (its streams carry no timings.draft_n_accepted and its /metrics no llamacpp:spec_decode_* counters; both arrived in ${describeChange(DRAFTS_ACCEPTED_REPORTED)})${running}`,
      hint: `Start llama-server with -v and name its log under expect.logs (benchgate then reads its debug lines "accepted N/M draft tokens"), or use build ${DRAFTS_ACCEPTED_REPORTED.tag} or later; without either, acceptance cannot be proven on this build.`,
    };
  }
  return {
    found: `unknown: ${LOOKED_AT}${running}`,
    hint: 'Check that the draft model is loaded and speculation is on (-md; --spec-type draft-simple on builds from b9474), and start the server with --metrics.',
  };
}
