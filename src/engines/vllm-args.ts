// vLLM's configuration under its argument names: normalised and `vllm.` facts from `non-default args`,
// the engine-config line, dev-mode /server_info or the command line, the speculative config in each of
// its forms (dict, `SpeculativeConfig(...)` repr, JSON text, pre-0.8 flags), and `vllm serve` argv.

import { redactDeep } from '../core/redact.js';
import { describeAbbreviations, indexAfter, readServerArgv } from './argv.js';
import { isRecord, setFact, setNativeFacts } from './facts.js';
import { parsePyKwargs, parsePyValue } from './pyrepr.js';
import type { ConfigFacts } from './types.js';
import { VLLM_FLAGS } from './vllm-flags.js';

/** Short argv spellings vLLM accepts → long flag names. */
const SHORT_FLAGS: Record<string, string> = {
  '-tp': '--tensor-parallel-size',
  '-pp': '--pipeline-parallel-size',
  '-dp': '--data-parallel-size',
  '-q': '--quantization',
};

/** Strips `torch.` so `torch.bfloat16` (engine config) and `bfloat16` (flags) compare equal. */
function normaliseDtype(v: unknown): unknown {
  return typeof v === 'string' ? v.replace(/^torch\./, '') : v;
}

function firstOf(v: unknown): unknown {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A speculative config given as a dict, a `SpeculativeConfig(...)` repr, or JSON text; `cut` when the
 * text ended inside it (its complete fields are kept, the one being cut is not).
 */
function specConfigObject(v: unknown): { spec: Record<string, unknown>; cut: boolean } | null {
  if (isRecord(v)) return { spec: v, cut: false };
  if (typeof v !== 'string' || !v.trim().startsWith('{')) return null;
  try {
    const parsed = JSON.parse(v);
    return isRecord(parsed) ? { spec: parsed, cut: false } : null;
  } catch {
    const py = parsePyValue(v);
    return isRecord(py.value) ? { spec: py.value, cut: !py.complete } : null;
  }
}

function setSpeculativeFacts(facts: ConfigFacts, raw: unknown, source: string): void {
  if (raw === null) {
    setFact(facts, 'speculative.algorithm', null, source);
    return;
  }
  const read = specConfigObject(raw);
  if (!read) return;
  const { spec, cut } = read;
  // V0's repr names no method: `SpeculativeConfig(draft_model='[ngram]', num_spec_tokens=5)` is n-gram
  // lookup, a model path is a draft (or EAGLE/Medusa, told only by the model's own config: left unknown)
  const ngram = spec.draft_model === '[ngram]';
  setFact(facts, 'speculative.algorithm', spec.method ?? (ngram ? 'ngram' : undefined), source);
  setFact(facts, 'speculative.draft_model', spec.model ?? (ngram ? undefined : spec.draft_model), source);
  // vLLM drafts a chain: num_speculative_tokens is both the draft depth and the tokens drafted per step.
  const drafted = spec.num_speculative_tokens ?? spec.num_spec_tokens;
  setFact(facts, 'speculative.num_steps', drafted, source);
  setFact(facts, 'speculative.num_draft_tokens', drafted, source);
  setNativeFacts(facts, 'vllm.speculative_config', spec, source);
  if (cut) setFact(facts, 'vllm.speculative_config_truncated', true, source);
}

/**
 * Normalised + `vllm.`-prefixed facts from vLLM argument names (non-default args, flags, or the
 * engine config line, which spells some fields differently: max_seq_len, served_model_name).
 */
export function factsFromVllmArgs(args: Record<string, unknown>, source: string): ConfigFacts {
  const facts: ConfigFacts = {};
  setFact(facts, 'engine', 'vllm', source);
  setFact(facts, 'model', args.model ?? args.model_tag, source);
  setFact(facts, 'served_model_name', firstOf(args.served_model_name), source);
  setFact(facts, 'tp_size', args.tensor_parallel_size, source);
  setFact(facts, 'pp_size', args.pipeline_parallel_size, source);
  setFact(facts, 'dp_size', args.data_parallel_size, source);
  setFact(facts, 'dtype', normaliseDtype(args.dtype), source);
  setFact(facts, 'quantization', args.quantization, source);
  setFact(facts, 'max_running_requests', args.max_num_seqs, source);
  setFact(facts, 'context_length', args.max_model_len ?? args.max_seq_len, source);
  if ('speculative_config' in args) setSpeculativeFacts(facts, args.speculative_config, source);
  const native: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args))
    if (k !== 'speculative_config' && !k.startsWith('__')) native[k] = v;
  setNativeFacts(facts, 'vllm', redactDeep(native), source);
  return facts;
}

/** Facts from `vllm_config` of dev-mode /server_info: the config repr text, or the JSON dump. */
export function factsFromVllmConfig(config: unknown, source: string): ConfigFacts {
  if (typeof config === 'string') return factsFromVllmArgs(parsePyKwargs(config).value, source);
  if (!isRecord(config)) return {};
  const model = isRecord(config.model_config) ? config.model_config : {};
  const parallel = isRecord(config.parallel_config) ? config.parallel_config : {};
  const scheduler = isRecord(config.scheduler_config) ? config.scheduler_config : {};
  return factsFromVllmArgs(
    {
      model: model.model,
      served_model_name: model.served_model_name,
      dtype: model.dtype,
      quantization: model.quantization,
      max_model_len: model.max_model_len,
      tensor_parallel_size: parallel.tensor_parallel_size,
      pipeline_parallel_size: parallel.pipeline_parallel_size,
      data_parallel_size: parallel.data_parallel_size,
      max_num_seqs: scheduler.max_num_seqs,
      speculative_config: config.speculative_config,
    },
    source,
  );
}

/** Where the server's own arguments start: after `vllm serve`, or after the api_server module. */
function argsStart(argv: string[]): number {
  const serveAt = argv.indexOf('serve');
  if (serveAt >= 0 && /vllm$/.test(argv[serveAt - 1] ?? 'vllm')) return serveAt + 1;
  return indexAfter(argv, (t) =>
    /vllm\.entrypoints\.openai\.api_server|vllm\.entrypoints\.api_server/.test(t),
  );
}

/**
 * Before 0.8 speculation was set by `--speculative-model` (a draft path or `[ngram]`) and
 * `--num-speculative-tokens`: read as the speculative config they made. A null model (Namespace's
 * default) is no speculation. Returns `args` unchanged when it has a speculative config already.
 */
export function withLegacySpeculativeConfig(args: Record<string, unknown>): Record<string, unknown> {
  if ('speculative_config' in args && args.speculative_config !== null) return args;
  if (!('speculative_model' in args || 'num_speculative_tokens' in args)) return args;
  if (args.speculative_model === null || args.speculative_model === undefined)
    return 'speculative_model' in args ? { ...args, speculative_config: null } : args;
  const model = args.speculative_model;
  const method = args.speculative_method ?? (model === '[ngram]' ? 'ngram' : undefined);
  const spec = {
    method,
    num_speculative_tokens: args.num_speculative_tokens,
    ...(model === '[ngram]' ? {} : { model }),
  };
  return { ...args, speculative_config: spec };
}

export function readVllmProcess(
  argv: string[],
  env: Record<string, string> | null,
  source: string,
): ConfigFacts {
  const expanded = argv.map((t) => SHORT_FLAGS[t] ?? t);
  const read = readServerArgv(expanded, argsStart(expanded), VLLM_FLAGS);
  const { positionals, abbreviations } = read;
  const args = withLegacySpeculativeConfig(read.args);
  if (!('model' in args) && positionals.length > 0 && expanded.includes('serve')) args.model = positionals[0];
  const facts = factsFromVllmArgs(args, source);
  if (!('speculative.algorithm' in facts) && argv.length > 0 && !('speculative_config' in args)) {
    setFact(facts, 'speculative.algorithm', null, `${source} (no --speculative-config flag)`, true);
  }
  if (!('served_model_name' in facts) && typeof args.model === 'string') {
    setFact(facts, 'served_model_name', args.model, `${source} (defaults to the model)`, true);
  }
  if (abbreviations.length > 0) {
    const text = describeAbbreviations(abbreviations);
    setFact(facts, 'vllm.abbreviated_flags', text, `${source} (argparse unique-prefix abbreviations)`);
  }
  if (env?.VLLM_SERVER_DEV_MODE !== undefined) {
    setFact(facts, 'vllm.env.VLLM_SERVER_DEV_MODE', env.VLLM_SERVER_DEV_MODE, `${source} environment`);
  }
  return facts;
}
