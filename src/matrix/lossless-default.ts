// Whether a matrix runs the lossless check, and against which baseline, when the plan does not say:
// speculative decoding must not change greedy answers, so a matrix whose configs differ in speculative
// settings checks it without a `lossless:` section (`lossless: false` turns it off). A config's
// speculative settings are read from its launch command line and environment by the engine adapters
// (the plan's engine, or each engine's reader when it is auto) and from the speculative.* keys its
// expect.config declares. The default baseline is the first config without speculation, else the first.

import { ADAPTERS, DETECTION_ORDER } from '../engines/index.js';
import type { EngineName } from '../engines/types.js';
import { type LosslessSpec, losslessSchema } from '../plan/lossless-schema.js';
import type { ConfigSpec, Plan } from '../plan/schema.js';
import { mergeExpect } from './config-plan.js';

type Settings = Record<string, string | number | boolean>;

const isSpec = (k: string) => k.startsWith('speculative.');

/** The speculative settings a config's launch line and expectations declare ({} for none). */
export function speculativeSettings(plan: Plan, config: ConfigSpec): Settings {
  const launch = config.launch;
  const argv = launch
    ? [...[launch.command].flat().flatMap((c) => c.trim().split(/\s+/)), ...launch.args]
    : [];
  const engines: EngineName[] = plan.target.engine === 'auto' ? [...DETECTION_ORDER] : [plan.target.engine];
  let fromArgv: Settings = {};
  for (const name of engines) {
    let facts: ReturnType<(typeof ADAPTERS)[EngineName]['readProcess']>;
    try {
      facts = ADAPTERS[name].readProcess(argv, launch?.env ?? null, 'launch');
    } catch {
      continue; // an engine that cannot read this command line says nothing about it
    }
    const found: Settings = {};
    for (const [k, f] of Object.entries(facts)) if (isSpec(k) && f.value !== null) found[k] = f.value;
    // a draft model on the launch line speculates whatever the build (llama.cpp's -md without --spec-type:
    // the reader leaves the algorithm to live evidence, but the answers may still change)
    const drafting =
      found['speculative.algorithm_if_active'] ?? (found['speculative.draft_model'] ? 'DRAFT' : undefined);
    if (found['speculative.algorithm'] === undefined && drafting !== undefined)
      found['speculative.algorithm'] = drafting;
    if (found['speculative.algorithm'] !== undefined) {
      fromArgv = found;
      break;
    }
  }
  const declared: Settings = {};
  for (const [k, v] of Object.entries(mergeExpect(plan.expect, config.expect).config)) {
    if (!isSpec(k) || v === null) continue;
    if (typeof v !== 'object') declared[k] = v as string | number | boolean;
    // `{ present: true }` declares the setting without its value: it counts as speculation all the same
    else if ('present' in v && v.present === true) declared[k] = 'present';
  }
  const all = { ...fromArgv, ...declared };
  // spec v2 and friends alone are no speculation: only an algorithm makes the settings count
  return all['speculative.algorithm'] === undefined ? {} : all;
}

const key = (s: Settings) =>
  JSON.stringify(
    Object.keys(s)
      .sort()
      .map((k) => [k, s[k]]),
  );

export interface LosslessPlan {
  spec: LosslessSpec;
  baseline: string;
  /** Why the check runs: "the plan's lossless section", or the speculative difference that turned it on. */
  why: string;
}

const cache = new WeakMap<Plan, LosslessPlan | null>();

/** The lossless check the matrix runs (null: none), with its baseline. */
export function matrixLossless(plan: Plan): LosslessPlan | null {
  if (cache.has(plan)) return cache.get(plan) ?? null;
  const configs = plan.configs ?? [];
  const settings = configs.map((c) => ({ name: c.name, s: speculativeSettings(plan, c) }));
  const plain = settings.find((c) => Object.keys(c.s).length === 0)?.name;
  const baseline = plan.lossless?.baseline ?? plain ?? configs[0]?.name;
  let out: LosslessPlan | null = null;
  if (plan.lossless) {
    if (plan.lossless.enabled && baseline)
      out = { spec: plan.lossless, baseline, why: "the plan's lossless section" };
  } else if (baseline && new Set(settings.map((c) => key(c.s))).size > 1) {
    const words = settings.map((c) => `${c.name} ${String(c.s['speculative.algorithm'] ?? 'none')}`);
    out = {
      spec: losslessSchema.parse({}),
      baseline,
      why: `on by default: the configs differ in speculative settings (${words.join(', ')}); \`lossless: false\` turns it off`,
    };
  }
  cache.set(plan, out);
  return out;
}
