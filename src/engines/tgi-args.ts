// Hugging Face TGI's configuration under its launcher's argument names: normalised and `tgi.` facts from
// the launcher flags and environment, the `Args { ... }` start-up dump or GET /info.

import { redactDeep } from '../core/redact.js';
import { flagValue, parseFlagArgv } from './argv.js';
import { setFact, setNativeFacts } from './facts.js';
import type { ConfigFacts } from './types.js';

/** Launcher argument names (flags, Args debug fields, /info fields) → normalised facts. */
export function factsFromTgiArgs(args: Record<string, unknown>, source: string): ConfigFacts {
  const facts: ConfigFacts = {};
  setFact(facts, 'engine', 'tgi', source);
  setFact(facts, 'engine_version', args.version, source);
  setFact(facts, 'model', args.model_id, source);
  setFact(facts, 'served_model_name', args.served_model_name ?? args.model_id, source);
  // None in the launcher's Args is "not given, the launcher or router picks it", never "none": every
  // visible GPU without --num-shard, the model's own quantization_config without --quantize, the
  // Medusa heads a model ships without --speculate
  setFact(facts, 'tp_size', args.num_shard ?? undefined, source);
  setFact(facts, 'dtype', args.dtype ?? args.model_dtype ?? undefined, source);
  setFact(facts, 'quantization', args.quantize ?? undefined, source);
  setFact(facts, 'max_running_requests', args.max_batch_size ?? undefined, source);
  setFact(facts, 'context_length', args.max_total_tokens ?? undefined, source);
  setFact(facts, 'speculative.num_steps', args.speculate ?? undefined, source);
  setNativeFacts(facts, 'tgi', redactDeep(args), source);
  return facts;
}

/** Launcher options also read from the environment (clap `env`), by their upper-case names. */
const ENV_ARGS = [
  'MODEL_ID',
  'NUM_SHARD',
  'QUANTIZE',
  'DTYPE',
  'MAX_TOTAL_TOKENS',
  'MAX_INPUT_TOKENS',
  'MAX_BATCH_PREFILL_TOKENS',
  'MAX_BATCH_SIZE',
  'SPECULATE',
];

export function readTgiProcess(
  argv: string[],
  env: Record<string, string> | null,
  source: string,
): ConfigFacts {
  const { flags } = parseFlagArgv(argv, 1);
  const args: Record<string, unknown> = {};
  for (const name of ENV_ARGS) {
    const v = env?.[name];
    if (v !== undefined) args[name.toLowerCase()] = flagValue(v);
  }
  for (const [k, v] of Object.entries(flags)) args[k] = flagValue(v);
  return factsFromTgiArgs(args, source);
}
