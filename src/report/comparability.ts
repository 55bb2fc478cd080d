// Apples to apples: diffs the verified configurations (and workloads) of the runs against the baseline.
// A difference in a key the plan does not declare as varied becomes a warning shown above the verdicts.

import type { LoadedRun } from '../results/layout.js';
import type { ConfigDifference } from './types.js';

/** Flat, comparable facts of a run: verified config, engine identity, and the workload that shaped it. */
export function runFacts(run: LoadedRun): Map<string, string> | null {
  const m = run.manifest;
  const facts = new Map<string, string>();
  const vt = m?.verifiedTarget;
  if (vt) {
    for (const [k, f] of Object.entries(vt.config ?? {})) facts.set(k, String(f?.value));
    if (!facts.has('engine')) facts.set('engine', vt.engine);
    if (vt.engineVersion !== null && !facts.has('engine_version'))
      facts.set('engine_version', vt.engineVersion);
    if (vt.model !== null && !facts.has('model')) facts.set('model', vt.model);
  }
  const plan = m?.plan;
  if (plan?.workload) {
    // a fact an importer could not read is absent from the plan: unknown, never a difference
    const w = plan.workload as Partial<typeof plan.workload>;
    if (w.dataset !== undefined) facts.set('workload.dataset', String(w.dataset));
    if (w.input_tokens !== undefined) facts.set('workload.input_tokens', JSON.stringify(w.input_tokens));
    if (w.output_tokens !== undefined) facts.set('workload.output_tokens', JSON.stringify(w.output_tokens));
    if (w.ignore_eos !== undefined) facts.set('workload.ignore_eos', String(w.ignore_eos));
    if (w.temperature !== undefined) facts.set('workload.temperature', String(w.temperature));
  }
  if (plan?.target?.api) facts.set('target.api', plan.target.api);
  return vt || plan ? facts : null;
}

/** Keys that say where a server listens or logs, not what it computes: never a comparability concern. */
const PLACEMENT_KEY = /(^|\.)(port|host|nccl_port|dist_init_addr|log_level|log_requests|uvicorn_log_level)$/;

export function isPlacementKey(key: string): boolean {
  return PLACEMENT_KEY.test(key);
}

/** Engine-native config keys are prefixed with the engine's name (`sglang.speculative_eagle_topk`). */
const ENGINE_NATIVE_KEY = /^(sglang|vllm|llamacpp|tgi|openai)\.(.*)$/s;

export function isEngineNativeKey(key: string): boolean {
  return ENGINE_NATIVE_KEY.test(key);
}

/**
 * True when `key` is covered by a declared varied key. Rules: exact match; `a.b` covers `a.b.c`;
 * `a.*` covers everything under `a`; an engine-native key (`sglang.speculative_eagle_topk`) is covered
 * when every word of a varied key (`speculative.topk`) appears among its words.
 */
export function isVaried(key: string, varies: readonly string[]): boolean {
  const words = (s: string) =>
    s
      .toLowerCase()
      .split(/[._-]+/)
      .filter(Boolean);
  const nativeRest = ENGINE_NATIVE_KEY.exec(key)?.[2];
  const native = nativeRest !== undefined;
  const keyWords = new Set(words(nativeRest ?? key));
  for (const raw of varies) {
    const v = raw.endsWith('.*') ? raw.slice(0, -2) : raw;
    if (key === v || key.startsWith(`${v}.`)) return true;
    if (native && words(v).every((w) => keyWords.has(w))) return true;
  }
  return false;
}

/**
 * A normalised key is varied when it is, or when its engine-native counterpart is (`sglang.*` varies
 * `sglang.max_running_requests`, so the normalised `max_running_requests` read from it varies too).
 */
export function isVariedFor(key: string, varies: readonly string[], engine: string | undefined): boolean {
  if (isVaried(key, varies)) return true;
  return engine !== undefined && !isEngineNativeKey(key) && isVaried(`${engine}.${key}`, varies);
}

/** Keys that describe what each request asks for: a difference here makes verdicts meaningless. */
export const isWorkloadKey = (key: string): boolean => key.startsWith('workload.') || key === 'target.api';

export interface Comparability {
  differences: ConfigDifference[];
  warnings: string[];
  /** Workload differences not declared as varied, e.g. `workload.input_tokens: {"fixed":256} in short, {"fixed":1024} in long`. */
  workloadDifferences: string[];
}

/**
 * An engine-native key that only restates a normalised key which differs too (`sglang.speculative_eagle_topk`
 * beside `speculative.topk`): a difference is named once, by its normalised key.
 */
function isTwinOf(key: string, normalisedDiffering: readonly string[]): boolean {
  return isEngineNativeKey(key) && normalisedDiffering.some((n) => isVaried(key, [n]));
}

export function diffConfigs(
  baseline: LoadedRun,
  others: readonly LoadedRun[],
  declared: readonly string[] = [],
): Comparability {
  const varies = new Set<string>(declared);
  for (const r of [baseline, ...others]) for (const v of r.manifest?.plan?.varies ?? []) varies.add(v);
  const variesList = [...varies];
  const differences: ConfigDifference[] = [];
  const warnings: string[] = [];
  const workloadDifferences: string[] = [];
  const baseFacts = runFacts(baseline);
  const baseTool = baseline.manifest?.source?.tool ?? 'benchgate';
  for (const other of others) {
    const tool = other.manifest?.source?.tool ?? 'benchgate';
    if (tool !== baseTool) {
      warnings.push(
        `${other.name} was measured by ${tool} and ${baseline.name} by ${baseTool}: their metric definitions differ (${other.manifest?.source?.definitions ?? 'see the run manifest'}).`,
      );
    }
    const facts = runFacts(other);
    if (!baseFacts || !facts) {
      const missing = !baseFacts ? baseline.name : other.name;
      warnings.push(
        `${missing} has no verified configuration, so whether ${other.name} and ${baseline.name} ran comparable setups cannot be checked.`,
      );
      continue;
    }
    const keys = new Set([...baseFacts.keys(), ...facts.keys()]);
    const unexpected: string[] = [];
    const normalisedUnexpected: string[] = [];
    for (const key of [...keys].sort()) {
      const a = baseFacts.get(key) ?? '(unknown)';
      const b = facts.get(key) ?? '(unknown)';
      if (a === b || isPlacementKey(key)) continue;
      // a fact one side could not read is unknown, not different
      if (!baseFacts.has(key) || !facts.has(key)) continue;
      const expected = isVariedFor(key, variesList, facts.get('engine') ?? baseFacts.get('engine'));
      differences.push({ key, baseline: a, other: b, run: other.name, expected });
      // each value under its own run's name (the other run's first, as the sentence names it first)
      const both = `${b} in ${other.name}, ${a} in ${baseline.name}`;
      if (!expected) unexpected.push(key);
      if (!expected && !isEngineNativeKey(key)) normalisedUnexpected.push(key);
      if (!expected && isWorkloadKey(key)) workloadDifferences.push(`${key}: ${both}`);
    }
    const named = unexpected
      .filter((k) => !isTwinOf(k, normalisedUnexpected))
      .map((k) => `${k}: ${facts.get(k)} in ${other.name}, ${baseFacts.get(k)} in ${baseline.name}`);
    if (named.length > 0) {
      warnings.push(
        `${other.name} differs from ${baseline.name} outside the varied keys (${variesList.length ? variesList.join(', ') : "none declared: a plan's varies, or compare --varies KEYS"}): ${named.join('; ')}.`,
      );
    }
  }
  differences.sort((x, y) => Number(x.expected) - Number(y.expected) || x.key.localeCompare(y.key));
  return { differences, warnings, workloadDifferences };
}
