// A session of one target: everything a run prepares once (auth headers, model listing, engine
// detection, the checkpoint gate, the smoke request, tokenizer choice, ONE clock anchor), then the
// load levels swept one at a time into a run store, each followed by the drift check.
// `bench`, the single-server `run` and every matrix config go through it, so a matrix level does
// not repeat detection or the smoke request and all records of a session share one anchor.
//
// This file is the session's face: opening lives in open-session.ts (with target-detect.ts,
// pass-gate.ts, smoke.ts, session-store.ts), sweeping in level-sweeper.ts (with level-prepare.ts,
// level-send.ts, level-telemetry.ts, level-stop.ts).

export { MAX_PROMPT_POOL } from './level-prepare.js';
export { openSession } from './open-session.js';
export type {
  BeforeLoadResult,
  LevelOutcome,
  LevelStop,
  LevelValidity,
  OpenSessionOptions,
  RunLevelOptions,
  Session,
} from './session-types.js';
export { SMOKE_ATTEMPTS } from './smoke.js';
export { authHeaders, streamTimeouts } from './target-auth.js';
