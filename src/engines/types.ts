// Engine-neutral view of a server's effective configuration, and the adapter contract each
// engine file implements. An engine's quirks live in its adapter and nowhere else.

/**
 * One known configuration fact. A key absent from the ConfigFacts map is "unknown" (never false).
 * `source` says where it was read (e.g. `GET /server_info`, `server.log:12`, `/proc/123/environ`).
 */
export interface ConfigFact {
  value: string | number | boolean | null;
  source: string;
  /** True when derived rather than read directly (e.g. spec v2 inferred from overlap + EAGLE). */
  inferred?: boolean;
}

/**
 * Normalised keys shared by all engines (write expectations against these):
 *   engine, engine_version, model, served_model_name, tp_size, dp_size, pp_size, dtype, quantization,
 *   max_running_requests, context_length, overlap_schedule, speculative.algorithm,
 *   speculative.draft_model, speculative.num_steps, speculative.topk, speculative.num_draft_tokens,
 *   speculative.spec_v2
 * Engine-native keys are prefixed with the engine: `sglang.disable_overlap_schedule`, `vllm.max_num_seqs`.
 */
export type ConfigFacts = Record<string, ConfigFact>;

export const NORMALISED_KEYS = [
  'engine',
  'engine_version',
  'model',
  'served_model_name',
  'tp_size',
  'dp_size',
  'pp_size',
  'dtype',
  'quantization',
  'max_running_requests',
  'context_length',
  'overlap_schedule',
  'speculative.algorithm',
  'speculative.draft_model',
  'speculative.num_steps',
  'speculative.topk',
  'speculative.num_draft_tokens',
  'speculative.spec_v2',
] as const;

export type EngineName = 'sglang' | 'vllm' | 'llamacpp' | 'tgi' | 'openai';

/** The checkpoint's verified view of the target, stored in every run's manifest. */
export interface VerifiedTarget {
  url: string;
  engine: EngineName;
  engineVersion: string | null;
  model: string | null;
  config: ConfigFacts;
  /** Raw documents read (endpoint path or file → parsed JSON or text), secrets removed. */
  raw: Record<string, unknown>;
  /** Server process start time (ISO) when known (from /proc or the log). */
  processStartTime: string | null;
  /** Hash over normalised config, engine version, model identity and process start time. */
  fingerprint: string;
}
