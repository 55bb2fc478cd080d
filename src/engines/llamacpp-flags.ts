// llama-server's command line and LLAMA_ARG_* environment as facts, with its speculative settings read
// for the build that runs: `-md` alone speculated on builds before b9474 and does not from then on, so
// that rule is applied only when the build (or live /slots evidence) says which side the server is on.

import { redactDeep } from '../core/redact.js';
import { flagValue, parseFlagArgv } from './argv.js';
import { setFact, setNativeFacts } from './facts.js';
import {
  DRAFT_MODEL_NEEDS_SPEC_TYPE,
  DRAFT_N_MAX_DEFAULT_3,
  describeChange,
  parseLlamacppBuild,
  sideOf,
} from './llamacpp-builds.js';
import type { ConfigFacts } from './types.js';

/** Every spelling of a flag, mapped to the canonical long name (llama-server --help, 2025–2026 builds). */
const FLAG_ALIASES: Record<string, string> = {
  '-m': '--model',
  '-c': '--ctx-size',
  '-np': '--parallel',
  '-a': '--alias',
  '-md': '--spec-draft-model',
  '--model-draft': '--spec-draft-model',
  '-ngl': '--n-gpu-layers',
  '--gpu-layers': '--n-gpu-layers',
  '-ngld': '--spec-draft-ngl',
  '--gpu-layers-draft': '--spec-draft-ngl',
  '--n-gpu-layers-draft': '--spec-draft-ngl',
  '-t': '--threads',
  '-td': '--spec-draft-threads',
  '--threads-draft': '--spec-draft-threads',
  '-b': '--batch-size',
  '-ub': '--ubatch-size',
  '-fa': '--flash-attn',
  '-hf': '--hf-repo',
  '-hfr': '--hf-repo',
  '-hfd': '--spec-draft-hf',
  '-hfrd': '--spec-draft-hf',
  '--hf-repo-draft': '--spec-draft-hf',
  '--draft-p-min': '--spec-draft-p-min',
  '-lv': '--verbosity',
  '-kvu': '--kv-unified',
  '--log-verbosity': '--verbosity',
  // the names before the 2026-04 refactor (b8967), still what older builds accept
  '--draft': '--spec-draft-n-max',
  '--draft-n': '--spec-draft-n-max',
  '--draft-max': '--spec-draft-n-max',
  '--draft-min': '--spec-draft-n-min',
  '--draft-n-min': '--spec-draft-n-min',
};

/** Environment variables llama-server reads in place of flags. */
const ENV_FLAGS: Record<string, string> = {
  LLAMA_ARG_MODEL: 'model',
  LLAMA_ARG_CTX_SIZE: 'ctx_size',
  LLAMA_ARG_N_PARALLEL: 'parallel',
  LLAMA_ARG_ALIAS: 'alias',
  LLAMA_ARG_MODEL_DRAFT: 'spec_draft_model',
  LLAMA_ARG_SPEC_DRAFT_MODEL: 'spec_draft_model',
  LLAMA_ARG_SPEC_TYPE: 'spec_type',
  LLAMA_ARG_SPEC_DRAFT_N_MAX: 'spec_draft_n_max',
  LLAMA_ARG_DRAFT_MAX: 'spec_draft_n_max',
};

/** Draft depth `--spec-draft-n-max` (`--draft-max`) when not given: 16 before b9247, 3 from then on. */
function defaultDraftDepth(facts: ConfigFacts, source: string, live: LiveHints): void {
  const build = parseLlamacppBuild(live.engineVersion);
  const side = build.kind === 'value' ? sideOf(build.value, DRAFT_N_MAX_DEFAULT_3) : 'uncertain';
  if (build.kind !== 'value' || side === 'uncertain') return;
  const depth = side === 'after' ? 3 : 16;
  const why = `--spec-draft-n-max default on build ${build.value.text}: ${side === 'after' ? '3 from' : '16 before'} ${describeChange(DRAFT_N_MAX_DEFAULT_3)}`;
  setFact(facts, 'speculative.num_steps', depth, `${source} (${why})`, true);
}

/** Type names before b9146 (`draft`, `ngram_simple`, `eagle3`) → the current ones. */
const OLD_TYPE_NAMES: Record<string, string> = { draft: 'draft-simple', eagle3: 'draft-eagle3' };

/** Canonical speculative type list (`draft-simple`, `ngram-mod,draft-simple`); null when none. */
export function specTypes(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const types = raw
    .split(',')
    .map((t) => t.trim().toLowerCase().replace(/_/g, '-'))
    .map((t) => OLD_TYPE_NAMES[t] ?? t)
    .filter((t) => t !== '' && t !== 'none');
  return types.length > 0 ? types.join(',') : null;
}

/** What the live endpoints already said that decides a command-line rule (build, /slots). */
export interface LiveHints {
  engineVersion?: unknown;
  /** `speculative` of every slot in GET /slots, when they agree. */
  slotsSpeculative?: boolean;
}

/**
 * `-md` without `--spec-type`: speculates with the draft model on builds before b9474, not from then on.
 * Live /slots decides it outright; else the build does; else it stays unknown, saying why.
 */
function draftWithoutSpecType(facts: ConfigFacts, source: string, live: LiveHints): void {
  const change = describeChange(DRAFT_MODEL_NEEDS_SPEC_TYPE);
  // what runs if live evidence shows this server speculating: the draft model, whatever the build
  setFact(
    facts,
    'speculative.algorithm_if_active',
    'draft-simple',
    `${source} (-md without a --spec-type)`,
    true,
  );
  if (live.slotsSpeculative !== undefined) {
    const why = `-md without a --spec-type, and GET /slots says speculative: ${live.slotsSpeculative}`;
    setFact(
      facts,
      'speculative.algorithm',
      live.slotsSpeculative ? 'draft-simple' : null,
      `${source} (${why})`,
      true,
    );
    return;
  }
  const build = parseLlamacppBuild(live.engineVersion);
  const side = build.kind === 'value' ? sideOf(build.value, DRAFT_MODEL_NEEDS_SPEC_TYPE) : null;
  if (build.kind === 'value' && side === 'after')
    setFact(
      facts,
      'speculative.algorithm',
      null,
      `${source} (-md without a --spec-type loads a draft model but does not speculate on build ${build.value.text}: draft auto-enable removed in ${change})`,
      true,
    );
  else if (build.kind === 'value' && side === 'before')
    setFact(
      facts,
      'speculative.algorithm',
      'draft-simple',
      `${source} (-md without a --spec-type speculates with the draft model on build ${build.value.text}, before ${change})`,
      true,
    );
  else {
    const why =
      build.kind === 'value'
        ? `build ${build.value.text} is too close to ${change} to tell`
        : build.kind === 'unknown'
          ? build.reason
          : 'the build is unknown';
    setFact(
      facts,
      'llamacpp.speculation_rule',
      `unknown: -md without a --spec-type speculates on builds before ${change} and not after; ${why}`,
      source,
    );
  }
}

/** The speculative facts of the command line: types, draft model and draft depth. */
function speculativeFacts(
  facts: ConfigFacts,
  v: (k: string) => unknown,
  at: (k: string) => string,
  source: string,
  live: LiveHints,
): void {
  const draftModel = v('spec_draft_model') ?? v('spec_draft_hf');
  // a llama-server command line (and environment) without -md / --hf-repo-draft has no draft model: absent
  if (draftModel === undefined)
    setFact(facts, 'speculative.draft_model', null, `${source} (no -md or draft repo)`, true);
  else setFact(facts, 'speculative.draft_model', draftModel, at('spec_draft_model'));
  const types = specTypes(v('spec_type')) ?? (v('spec_default') === true ? 'ngram-mod' : null);
  // `--spec-type none` with -md is read like no --spec-type: builds before b9474 enabled the draft anyway
  if (types !== null) {
    const where = v('spec_type') !== undefined ? at('spec_type') : `${source} (--spec-default)`;
    setFact(facts, 'speculative.algorithm', types, where);
  } else if (draftModel !== undefined) draftWithoutSpecType(facts, source, live);
  else setFact(facts, 'speculative.algorithm', null, `${source} (no --spec-type or draft model)`, true);
  const algorithm = facts['speculative.algorithm']?.value;
  if (typeof algorithm === 'string' && algorithm.split(',').some((t) => t.startsWith('DRAFT-'))) {
    const nMax = v('spec_draft_n_max');
    if (nMax !== undefined) setFact(facts, 'speculative.num_steps', nMax, at('spec_draft_n_max'));
    else defaultDraftDepth(facts, source, live);
  }
}

/** argv with every alias spelled as its canonical long flag (`-md X`, `--model-draft=X` → `--spec-draft-model`). */
function canonicalArgv(argv: string[]): string[] {
  return argv.flatMap((t) => {
    const eq = t.indexOf('=');
    const name = eq > 0 ? t.slice(0, eq) : t;
    const alias = FLAG_ALIASES[name];
    if (!alias) return [t];
    return eq > 0 ? [`${alias}=${t.slice(eq + 1)}`] : [alias];
  });
}

export function readLlamacppProcess(
  argv: string[],
  env: Record<string, string> | null,
  source: string,
  live: LiveHints = {},
): ConfigFacts {
  const { flags } = parseFlagArgv(canonicalArgv(argv), 1);
  const facts: ConfigFacts = {};
  setFact(facts, 'engine', 'llamacpp', source);
  const fromEnv: Record<string, string> = {};
  for (const [k, name] of Object.entries(ENV_FLAGS))
    if (env && env[k] !== undefined && !(name in flags)) fromEnv[name] = env[k];
  const v = (k: string) =>
    k in flags ? flagValue(flags[k]) : k in fromEnv ? flagValue(fromEnv[k]) : undefined;
  const at = (k: string) => (k in fromEnv ? `${source} (environment)` : source);
  setFact(facts, 'model', v('model') ?? v('hf_repo'), at('model'));
  setFact(facts, 'served_model_name', v('alias'), at('alias'));
  setFact(facts, 'max_running_requests', v('parallel'), at('parallel'));
  const nCtx = v('ctx_size');
  // -c is the whole context, split over the slots (n_ctx_slot = ctx_size / parallel, observed 2048 / 4 = 512),
  // unless the slots share one unified KV buffer (--kv-unified): then each may use all of it
  const parallel = v('parallel');
  const unified = v('kv_unified') === true;
  if (typeof nCtx === 'number' && nCtx > 0 && typeof parallel === 'number' && parallel > 0)
    setFact(
      facts,
      'context_length',
      unified ? nCtx : Math.floor(nCtx / parallel),
      `${at('ctx_size')} (${unified ? '-c, one KV buffer shared by the slots' : '-c / -np per slot'})`,
      true,
    );
  if (/llama-server(?:\.exe)?$/.test(argv[0] ?? '') || 'spec_type' in flags || 'spec_draft_model' in flags)
    speculativeFacts(facts, v, at, source, live);
  const native: Record<string, unknown> = {};
  for (const k of [...Object.keys(flags), ...Object.keys(fromEnv)]) native[k] = v(k);
  setNativeFacts(facts, 'llamacpp', redactDeep(native), source);
  return facts;
}
