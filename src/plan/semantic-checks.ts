// Plan rules the schema's shapes cannot express: combinations of keys (concurrency levels are whole
// numbers; open-loop options only with kind: rate), duplicates (levels, percentiles, config names, varies
// keys), durations that must be positive, and secrets in the wrong place (a key pasted where its variable's
// name belongs, credentials inside a URL).
// They run on the raw object and skip values of the wrong type (those are the schema's to report),
// so every problem is reported at once.

import { parseDurationS } from '../core/clock.js';
import type { PlanPath, PlanProblem } from './problem.js';
import { trialProblems } from './trial-checks.js';
import { traceLoadProblems } from './workload-checks.js';

type Raw = Record<string, unknown>;

function asMap(v: unknown): Raw | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : null;
}

function duplicates<T>(items: readonly T[], path: PlanPath, what: (v: T) => string): PlanProblem[] {
  const seen = new Map<T, number>();
  const out: PlanProblem[] = [];
  items.forEach((v, i) => {
    const first = seen.get(v);
    if (first === undefined) seen.set(v, i);
    else
      out.push({
        path: [...path, i],
        message: `${what(v)} is listed twice (also at index ${first})`,
        anchor: 'value',
      });
  });
  return out;
}

function loadProblems(load: Raw): PlanProblem[] {
  const out: PlanProblem[] = [];
  const kind = load.kind ?? 'concurrency';
  const levels = Array.isArray(load.levels) ? load.levels : [];
  const numericLevels = levels.filter((v): v is number => typeof v === 'number');
  if (kind === 'concurrency') {
    levels.forEach((v, i) => {
      if (typeof v === 'number' && v > 0 && !Number.isInteger(v)) {
        out.push({
          path: ['load', 'levels', i],
          message: `a concurrency level is a whole number of requests in flight, found ${v} (for requests/s use kind: rate)`,
          anchor: 'value',
        });
      }
    });
    // Values equal to the schema defaults are accepted, so an already-resolved plan validates again unchanged.
    const openLoopOnly = { arrival: 'poisson', burstiness: 1, max_concurrency: undefined } as const;
    for (const key of ['arrival', 'burstiness', 'max_concurrency'] as const) {
      if (load[key] !== undefined && load[key] !== openLoopOnly[key]) {
        out.push({
          path: ['load', key],
          message: `${key} applies only to kind: rate (open loop); with kind: concurrency the level itself fixes the requests in flight`,
          anchor: 'key',
        });
      }
    }
  } else if (
    kind === 'rate' &&
    load.burstiness !== undefined &&
    load.burstiness !== 1 &&
    (load.arrival ?? 'poisson') !== 'gamma'
  ) {
    out.push({
      path: ['load', 'burstiness'],
      message: 'burstiness applies only to arrival: gamma (1, the default, means Poisson)',
      anchor: 'key',
    });
  }
  if (numericLevels.length === levels.length)
    out.push(...duplicates(numericLevels, ['load', 'levels'], (v) => `level ${v}`));
  if (load.duration !== undefined) {
    const s =
      typeof load.duration === 'string' || typeof load.duration === 'number'
        ? parseDurationS(load.duration)
        : null;
    if (s === 0)
      out.push({ path: ['load', 'duration'], message: 'must be longer than 0 seconds', anchor: 'value' });
  }
  return out;
}

function configProblems(configs: unknown[]): PlanProblem[] {
  const out: PlanProblem[] = [];
  const firstByName = new Map<string, number>();
  configs.forEach((c, i) => {
    const config = asMap(c);
    if (!config) return;
    if (typeof config.name === 'string') {
      const first = firstByName.get(config.name);
      if (first === undefined) firstByName.set(config.name, i);
      else {
        out.push({
          path: ['configs', i, 'name'],
          message: `config name "${config.name}" is already used by configs[${first}]; names must be unique`,
          anchor: 'value',
        });
      }
    }
    out.push(...urlProblems(config.url, ['configs', i, 'url']));
    const ready = config.ready_timeout;
    if ((typeof ready === 'string' || typeof ready === 'number') && parseDurationS(ready) === 0) {
      out.push({
        path: ['configs', i, 'ready_timeout'],
        message: 'must be longer than 0 seconds',
        anchor: 'value',
      });
    }
  });
  return out;
}

/** A URL that carries credentials (user:password@ or a key/token query parameter) would leak them into results. */
function urlCarriesSecret(url: string): boolean {
  try {
    const u = new URL(url);
    if (u.username !== '' || u.password !== '') return true;
    return [...u.searchParams.keys()].some((k) => /key|token|secret|passw|auth/i.test(k));
  } catch {
    return false; // not a URL at all: the schema reports it
  }
}

/** The URL's scheme when it is not http or https (ftp:, file:, ws: ...), else null. */
function foreignScheme(url: string): string | null {
  try {
    const p = new URL(url).protocol;
    return p === 'http:' || p === 'https:' ? null : p;
  } catch {
    return null; // not a URL at all: the schema reports it
  }
}

function urlProblems(url: unknown, path: PlanPath): PlanProblem[] {
  if (typeof url !== 'string') return [];
  const scheme = foreignScheme(url);
  if (scheme)
    return [{ path, message: `expected an http:// or https:// URL, found ${scheme}//`, anchor: 'value' }];
  if (!urlCarriesSecret(url)) return [];
  // Never echo the URL: it holds the secret.
  return [
    {
      path,
      message:
        'the URL carries credentials, which would be written into results; use api_key_env or headers instead',
      anchor: 'value',
    },
  ];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A config key, or a prefix ending in `.*` that covers every key below it (e.g. `speculative.*`). */
const VARIES_KEY = /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*(\.\*)?$/;

function targetProblems(target: Raw): PlanProblem[] {
  const out: PlanProblem[] = urlProblems(target.url, ['target', 'url']);
  if (typeof target.api_key_env === 'string' && !ENV_NAME.test(target.api_key_env)) {
    // Never echo the value: it may be the key itself.
    out.push({
      path: ['target', 'api_key_env'],
      message: 'expected the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself',
      anchor: 'value',
    });
  }
  const engine = target.engine ?? 'auto';
  if (target.api === 'native' && engine !== 'auto' && engine !== 'sglang') {
    out.push({
      path: ['target', 'api'],
      message: `api: native is SGLang's /generate endpoint; engine ${String(engine)} does not serve it (use completions or chat)`,
      anchor: 'value',
    });
  }
  return out;
}

/** The problem with one regular expression, or null when it compiles (as the checks compile it: no flags). */
function regexProblem(source: unknown, path: PlanPath): PlanProblem[] {
  if (typeof source !== 'string') return [];
  try {
    new RegExp(source);
    return [];
  } catch (e) {
    const why = (e as Error).message.replace(/^Invalid regular expression: /, '');
    return [{ path, message: `invalid regular expression: ${why}`, anchor: 'value' }];
  }
}

/** Regexes of config expectations ({ regex }) and log assertions (regex: one or a list). */
function expectRegexProblems(expect: Raw, base: PlanPath): PlanProblem[] {
  const out: PlanProblem[] = [];
  for (const [key, e] of Object.entries(asMap(expect.config) ?? {})) {
    const op = asMap(e);
    if (op && 'regex' in op) out.push(...regexProblem(op.regex, [...base, 'config', key, 'regex']));
  }
  if (Array.isArray(expect.logs)) {
    expect.logs.forEach((l, i) => {
      const r = asMap(l)?.regex;
      const at: PlanPath = [...base, 'logs', i, 'regex'];
      if (!Array.isArray(r)) out.push(...regexProblem(r, at));
      else
        r.forEach((x, j) => {
          out.push(...regexProblem(x, [...at, j]));
        });
    });
  }
  return out;
}

/** gpus.model written as /regex/flags is compiled by the GPU check; a plain substring is not a regex. */
function gpuModelProblems(gpus: Raw): PlanProblem[] {
  const m = typeof gpus.model === 'string' ? /^\/(.*)\/([a-z]*)$/.exec(gpus.model) : null;
  if (!m) return [];
  try {
    new RegExp(m[1]!, m[2]);
    return [];
  } catch (e) {
    return [{ path: ['gpus', 'model'], message: (e as Error).message, anchor: 'value' }];
  }
}

/** workload.kind multi_turn sends chat messages from users that each wait for their reply: chat API, closed loop. */
function multiTurnProblems(plan: Raw): PlanProblem[] {
  if (asMap(plan.workload)?.kind !== 'multi_turn') return [];
  const out: PlanProblem[] = [];
  const api = asMap(plan.target)?.api ?? 'completions';
  if (api !== 'chat')
    out.push({
      path: asMap(plan.target)?.api === undefined ? ['workload', 'kind'] : ['target', 'api'],
      message: `workload.kind multi_turn sends each turn's whole history as chat messages: set target.api: chat (found ${String(api)})`,
      anchor: 'value',
    });
  const load = asMap(plan.load);
  const kind = load?.kind ?? 'concurrency';
  const over = asMap(load?.slo_search)?.over ?? 'rate';
  if (typeof load?.workers === 'number' && load.workers > 1)
    out.push({
      path: ['load', 'workers'],
      message: `workload.kind multi_turn runs in one thread (each turn needs the previous reply): set it to 1 or auto (found ${load.workers})`,
      anchor: 'value',
    });
  if (kind === 'rate' || (kind === 'slo_search' && over !== 'concurrency'))
    out.push({
      path: ['load', 'kind'],
      message:
        'workload.kind multi_turn runs closed loop: each stream is one user waiting for its reply and thinking before the next turn; set load.kind: concurrency (or slo_search over: concurrency)',
      anchor: 'value',
    });
  return out;
}

/** Every cross-key problem of a raw plan object. */
export function semanticProblems(raw: unknown): PlanProblem[] {
  const plan = asMap(raw);
  if (!plan) return [];
  const out: PlanProblem[] = [];
  const target = asMap(plan.target);
  if (target) out.push(...targetProblems(target));
  const load = asMap(plan.load);
  if (load) out.push(...loadProblems(load));
  out.push(...multiTurnProblems(plan));
  out.push(...trialProblems(plan), ...traceLoadProblems(plan));
  if (Array.isArray(plan.percentiles) && plan.percentiles.every((p) => typeof p === 'number')) {
    out.push(...duplicates(plan.percentiles as number[], ['percentiles'], (p) => `percentile ${p}`));
  }
  if (Array.isArray(plan.varies)) {
    plan.varies.forEach((k, i) => {
      if (typeof k === 'string' && !VARIES_KEY.test(k)) {
        out.push({
          path: ['varies', i],
          message:
            'expected a configuration key such as speculative.topk or tp_size, or a prefix such as speculative.*',
          anchor: 'value',
        });
      }
    });
    const names = plan.varies.filter((k): k is string => typeof k === 'string');
    if (names.length === plan.varies.length) out.push(...duplicates(names, ['varies'], (k) => `key "${k}"`));
  }
  if (Array.isArray(plan.configs)) out.push(...configProblems(plan.configs));
  const expect = asMap(plan.expect);
  if (expect) out.push(...expectRegexProblems(expect, ['expect']));
  if (Array.isArray(plan.configs)) {
    plan.configs.forEach((c, i) => {
      const own = asMap(asMap(c)?.expect);
      if (own) out.push(...expectRegexProblems(own, ['configs', i, 'expect']));
    });
  }
  const gpus = asMap(plan.gpus);
  if (gpus) out.push(...gpuModelProblems(gpus));
  return out;
}
