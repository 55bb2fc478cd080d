// The llamacpp flavour's command line: llama-server's flags (spellings from `llama-server --help`,
// commit 3f545becc), its wording for mistakes, and the configuration a start derives from them.

import { BenchgateError } from '../core/errors.js';
import type { SimProfile } from './profiles.js';
import type { ServedConfig } from './served-config.js';

/** What `/props` build_info and `system_fingerprint` say: a tagged build of the observed commit. */
export const LLAMACPP_BUILD = { number: 10587, commit: '3f545becc' };
export const LLAMACPP_BUILD_INFO = `b${LLAMACPP_BUILD.number}-${LLAMACPP_BUILD.commit}`;
/** `-np` auto (-1) means 4 slots. */
const AUTO_SLOTS = 4;
const DEFAULT_DRAFT_N_MAX = 3;
const SPEC_TYPES = [
  'none',
  'draft-simple',
  'draft-eagle3',
  'draft-mtp',
  'draft-dflash',
  'draft-dspark',
  'ngram-simple',
  'ngram-map-k',
  'ngram-map-k4v',
  'ngram-mod',
  'ngram-cache',
];

interface LlamaFlag {
  names: string[];
  dest: string;
  kind: 'int' | 'str' | 'bool';
}

/** The llama-server flags the flavour understands (spellings from `llama-server --help`). */
const FLAGS: LlamaFlag[] = [
  { names: ['-m', '--model'], dest: 'model', kind: 'str' },
  { names: ['-a', '--alias'], dest: 'alias', kind: 'str' },
  { names: ['--host'], dest: 'host', kind: 'str' },
  { names: ['--port'], dest: 'port', kind: 'int' },
  { names: ['-c', '--ctx-size'], dest: 'ctx_size', kind: 'int' },
  { names: ['-np', '--parallel'], dest: 'parallel', kind: 'int' },
  { names: ['-t', '--threads'], dest: 'threads', kind: 'int' },
  { names: ['-ngl', '--gpu-layers', '--n-gpu-layers'], dest: 'n_gpu_layers', kind: 'str' },
  { names: ['-fa', '--flash-attn'], dest: 'flash_attn', kind: 'str' },
  { names: ['-b', '--batch-size'], dest: 'batch_size', kind: 'int' },
  { names: ['-ub', '--ubatch-size'], dest: 'ubatch_size', kind: 'int' },
  { names: ['-s', '--seed'], dest: 'seed', kind: 'int' },
  { names: ['-lv', '--verbosity', '--log-verbosity'], dest: 'verbosity', kind: 'int' },
  { names: ['--api-key'], dest: 'api_key', kind: 'str' },
  { names: ['--metrics'], dest: 'metrics', kind: 'bool' },
  { names: ['--slots'], dest: 'slots', kind: 'bool' },
  { names: ['--no-slots'], dest: 'no_slots', kind: 'bool' },
  { names: ['--slot-save-path'], dest: 'slot_save_path', kind: 'str' },
  { names: ['--spec-draft-model', '-md', '--model-draft'], dest: 'spec_draft_model', kind: 'str' },
  { names: ['--spec-type'], dest: 'spec_type', kind: 'str' },
  { names: ['--spec-draft-n-max'], dest: 'spec_draft_n_max', kind: 'int' },
  { names: ['--spec-draft-n-min'], dest: 'spec_draft_n_min', kind: 'int' },
  { names: ['--spec-draft-threads', '-td', '--threads-draft'], dest: 'spec_draft_threads', kind: 'int' },
];

function invalid(message: string): BenchgateError {
  return new BenchgateError('BG_E_USAGE', `error: ${message}`);
}

/** Parses llama-server flags with its wording for mistakes (`error: invalid argument: --foo`). */
export function parseLlamacppArgv(argv: string[]): Record<string, string | number | boolean> {
  const byName = new Map<string, LlamaFlag>();
  for (const f of FLAGS) for (const n of f.names) byName.set(n, f);
  const out: Record<string, string | number | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const flag = byName.get(name);
    if (!flag) throw invalid(`invalid argument: ${a}`);
    if (flag.kind === 'bool') {
      out[flag.dest] = true;
      continue;
    }
    const raw = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (raw === undefined) throw invalid(`expected value for argument: ${name}`);
    if (flag.kind === 'int') {
      if (!/^-?\d+$/.test(raw)) throw invalid(`invalid value for ${name}: ${raw}`);
      out[flag.dest] = Number(raw);
    } else out[flag.dest] = raw;
  }
  const types = typeof out.spec_type === 'string' ? out.spec_type.split(',') : [];
  for (const t of types)
    if (!SPEC_TYPES.includes(t)) throw invalid(`unknown speculative decoding type: ${t}`);
  return out;
}

/**
 * The served configuration of `llama-server ARGV`: slots (`-np`, auto = 4), per-slot context
 * (`-c` / slots; `-c 0` = the model's training context per slot), speculative decoding only with a
 * `--spec-type` other than none (`-md` alone loads the draft and does not speculate).
 */
export function llamacppConfig(profile: SimProfile, argv: string[]): ServedConfig {
  const v = parseLlamacppArgv(argv);
  const modelPath = typeof v.model === 'string' ? v.model : `${profile.modelPath.replace(/.*\//, '')}.gguf`;
  const slots = typeof v.parallel === 'number' && v.parallel > 0 ? v.parallel : AUTO_SLOTS;
  const ctxTotal =
    typeof v.ctx_size === 'number' && v.ctx_size > 0 ? v.ctx_size : profile.contextLength * slots;
  const ctxSlot = Math.floor(ctxTotal / slots);
  const types = typeof v.spec_type === 'string' ? v.spec_type.split(',').filter((t) => t !== 'none') : [];
  const draft = typeof v.spec_draft_model === 'string' ? v.spec_draft_model : null;
  const speculates = types.some((t) => t.startsWith('ngram-') || (t.startsWith('draft-') && draft !== null));
  const nMax = typeof v.spec_draft_n_max === 'number' ? v.spec_draft_n_max : DEFAULT_DRAFT_N_MAX;
  const alias = typeof v.alias === 'string' ? v.alias : modelPath;
  const engineArgs: Record<string, unknown> = {
    ...v,
    model: modelPath,
    parallel: slots,
    n_ctx_slot: ctxSlot,
    spec_type: types.length > 0 ? types.join(',') : 'none',
    spec_draft_n_max: nMax,
    verbosity: typeof v.verbosity === 'number' ? v.verbosity : 3,
  };
  if (engineArgs.api_key !== undefined) engineArgs.api_key = '<redacted>';
  return {
    flavor: 'llamacpp',
    modelPath,
    servedModelName: alias,
    tpSize: 1,
    dpSize: 1,
    dtype: 'auto',
    quantization: null,
    contextLength: ctxSlot,
    maxRunningRequests: slots,
    maxTotalNumTokens: ctxTotal,
    chunkedPrefillSize: typeof v.batch_size === 'number' ? v.batch_size : 2048,
    disableOverlapSchedule: true,
    specAlgorithm: speculates ? types.join(',') : null,
    specDraftModelPath: draft,
    specNumSteps: speculates ? nMax : null,
    specTopk: speculates ? 1 : null,
    specNumDraftTokens: speculates ? nMax + 1 : null,
    specV2: false,
    decodeLogInterval: 40,
    randomSeed: typeof v.seed === 'number' && v.seed >= 0 ? v.seed : 0,
    apiKey: typeof v.api_key === 'string' ? v.api_key : null,
    engineArgs,
    givenArgs: {},
    warnings: [],
    startError: null,
  };
}

/** Draft tokens a request proposed: every verify step drafts up to n-max tokens. */
export function draftTokensOf(c: ServedConfig, r: { verifyCt: number; acceptedDraftTokens: number }): number {
  return c.specAlgorithm === null ? 0 : Math.max(r.acceptedDraftTokens, r.verifyCt * (c.specNumSteps ?? 0));
}
