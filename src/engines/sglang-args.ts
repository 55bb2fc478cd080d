// SGLang's configuration as ServerArgs names: normalised and `sglang.` facts from a ServerArgs-shaped map
// (GET /server_info, the `server_args=ServerArgs(...)` log line, or the command line), spec v2 inferred
// where SGLang does not say it, and the server command line read as its argparse would.

import { redactDeep } from '../core/redact.js';
import { describeAbbreviations, envTruthy, indexAfter, readServerArgv } from './argv.js';
import { asBool, setFact, setNativeFacts } from './facts.js';
import { SGLANG_FLAGS } from './sglang-flags.js';
import { SPEC_V2_ALGORITHMS, specV2OfCommandLine } from './sglang-spec-v2.js';
import type { ConfigFacts } from './types.js';

/** argparse aliases → ServerArgs field names. */
const FLAG_ALIASES: Record<string, string> = {
  model: 'model_path',
  tensor_parallel_size: 'tp_size',
  tp: 'tp_size',
  data_parallel_size: 'dp_size',
  dp: 'dp_size',
  pipeline_parallel_size: 'pp_size',
  pp: 'pp_size',
  speculative_algo: 'speculative_algorithm',
};

/** Normalised key → ServerArgs field. */
const NORMALISED_FIELDS = [
  ['tp_size', 'tp_size'],
  ['dp_size', 'dp_size'],
  ['pp_size', 'pp_size'],
  ['dtype', 'dtype'],
  ['quantization', 'quantization'],
  ['speculative.algorithm', 'speculative_algorithm'],
  ['speculative.draft_model', 'speculative_draft_model_path'],
  ['speculative.num_steps', 'speculative_num_steps'],
  ['speculative.topk', 'speculative_eagle_topk'],
  ['speculative.num_draft_tokens', 'speculative_num_draft_tokens'],
] as const;

/**
 * Normalised + `sglang.`-prefixed facts from a ServerArgs-shaped map (server_info JSON, the parsed
 * ServerArgs(...) log line, or flags). Nulls the engine fills in later (context_length,
 * max_running_requests) stay unknown rather than null.
 */
export function factsFromServerArgs(args: Record<string, unknown>, source: string): ConfigFacts {
  const facts: ConfigFacts = {};
  setFact(facts, 'engine', 'sglang', source);
  if (typeof args.version === 'string') setFact(facts, 'engine_version', args.version, source);
  setFact(facts, 'model', args.model_path, source);
  setFact(facts, 'served_model_name', args.served_model_name ?? undefined, source);
  for (const [norm, native] of NORMALISED_FIELDS) setFact(facts, norm, args[native], source);
  for (const key of ['context_length', 'max_running_requests'] as const) {
    if (args[key] !== null) setFact(facts, key, args[key], source);
  }
  const disabled = asBool(args.disable_overlap_schedule);
  if (disabled !== undefined) setFact(facts, 'overlap_schedule', !disabled, source);
  const native: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (k === 'internal_states' || k.startsWith('__')) continue;
    native[k] = v;
  }
  setNativeFacts(facts, 'sglang', redactDeep(native), source);
  return facts;
}

/**
 * Spec v2 is not in server_info: inferred from overlap on + an EAGLE-family algorithm (SGLang turns
 * overlap off for EAGLE unless spec v2 is on). Sets nothing when the inputs are unknown.
 */
export function inferSpecV2(facts: ConfigFacts): void {
  if ('speculative.spec_v2' in facts) return;
  const algo = facts['speculative.algorithm'];
  const overlap = facts.overlap_schedule;
  if (!algo) return;
  if (algo.value === null) {
    facts['speculative.spec_v2'] = {
      value: false,
      source: `no speculative algorithm (${algo.source})`,
      inferred: true,
    };
    return;
  }
  if (!overlap || typeof overlap.value !== 'boolean') return;
  const family = SPEC_V2_ALGORITHMS.has(String(algo.value).toUpperCase());
  if (!family) return;
  facts['speculative.spec_v2'] = {
    value: overlap.value,
    source: `inferred from overlap_schedule=${overlap.value} and speculative.algorithm=${algo.value} (${overlap.source})`,
    inferred: true,
  };
}

/**
 * Spec v2 and the overlap scheduler of a command line, on the server's build (SGLANG_ENABLE_SPEC_V2 means
 * something else on each side of 2026-04-29 and nothing after 2026-06-11). For an EAGLE-family algorithm
 * overlap runs exactly when spec v2 does; otherwise it runs unless --disable-overlap-schedule.
 */
function readSpecV2(
  facts: ConfigFacts,
  args: Record<string, unknown>,
  env: Record<string, string> | null,
  source: string,
  version: unknown,
): void {
  const raw = env?.SGLANG_ENABLE_SPEC_V2;
  if (raw !== undefined) setFact(facts, 'sglang.env.SGLANG_ENABLE_SPEC_V2', raw, `${source} environment`);
  const reading = specV2OfCommandLine({
    algorithm: facts['speculative.algorithm']?.value,
    topk: facts['speculative.topk']?.value,
    disableOverlap: args.disable_overlap_schedule === true,
    betaSpec: args.enable_beta_spec === true,
    env: envTruthy(raw),
    version,
  });
  const how = raw === undefined ? 'SGLANG_ENABLE_SPEC_V2 unset' : `SGLANG_ENABLE_SPEC_V2=${raw}`;
  if (reading && 'value' in reading) {
    const where = `${source} (${how}, --speculative-eagle-topk, --disable-overlap-schedule; ${reading.why})`;
    setFact(facts, 'speculative.spec_v2', reading.value, where, true);
    if (!('overlap_schedule' in facts)) setFact(facts, 'overlap_schedule', reading.value, where, true);
  } else if (reading) setFact(facts, 'sglang.spec_v2_rule', `unknown: ${how}: ${reading.unknown}`, source);
  else if (!('overlap_schedule' in facts))
    setFact(facts, 'overlap_schedule', true, `${source} (no --disable-overlap-schedule)`, true);
}

export function readSglangProcess(
  argv: string[],
  env: Record<string, string> | null,
  source: string,
  version?: unknown,
): ConfigFacts {
  const start = indexAfter(
    argv,
    (t) => /sglang\.launch_server|sglang[/\\]launch_server\.py$/.test(t) || t === 'serve',
  );
  const { args, abbreviations } = readServerArgv(argv, start, SGLANG_FLAGS, FLAG_ALIASES);
  const facts = factsFromServerArgs(args, source);
  if (!('served_model_name' in facts) && typeof args.model_path === 'string') {
    setFact(facts, 'served_model_name', args.model_path, `${source} (defaults to --model-path)`, true);
  }
  if (abbreviations.length > 0) {
    const text = describeAbbreviations(abbreviations);
    setFact(facts, 'sglang.abbreviated_flags', text, `${source} (argparse unique-prefix abbreviations)`);
  }
  if (!('speculative.algorithm' in facts) && argv.length > 0) {
    setFact(facts, 'speculative.algorithm', null, `${source} (no --speculative-algorithm flag)`, true);
  }
  readSpecV2(facts, args, env, source, version);
  return facts;
}
