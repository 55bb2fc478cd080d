// Named faults the simulator can inject (`--fault NAME[=VALUE]`), parsed once with one clear error
// for an unknown name or a bad value. What each fault does is documented in README.md.

import { BenchgateError } from '../core/errors.js';

export interface Faults {
  crashOnFirstDecode: boolean;
  /** Extra start-up time, seconds (real time, not scaled). */
  slowStartS: number;
  /** Every scheduler step takes this many times longer (1 = unchanged): a regression with the same config. */
  slowFactor: number;
  /** Fraction of streams affected (1 = every stream). */
  stallStream: number;
  malformedChunk: number;
  resetMidStream: number;
  /** Fraction of generation requests answered 500/503. */
  httpErrors: number;
  staleLog: boolean;
  configDrift: boolean;
  /** Restart the simulated process after this many generation requests (0 = never). */
  restartAfter: number;
  /** Under speculative decoding, greedy output tokens from this 0-based position differ (null = off). */
  specDivergeAt: number | null;
  /** Fraction of streams that run on past max_tokens (to 1,000 × max_tokens). */
  ignoreMaxTokens: number;
  /** GET /v1/models answers a model list this many MiB long (0 = off). */
  hugeModelsMiB: number;
  /** The connection is closed after every streamed answer, its headers still saying keep-alive. */
  closeAfterStream: boolean;
  /** GET /metrics answers this many ms after it is asked (real time), with the counters of that moment. */
  slowMetricsMs: number;
}

export function noFaults(): Faults {
  return {
    crashOnFirstDecode: false,
    slowStartS: 0,
    slowFactor: 1,
    stallStream: 0,
    malformedChunk: 0,
    resetMidStream: 0,
    httpErrors: 0,
    staleLog: false,
    configDrift: false,
    restartAfter: 0,
    specDivergeAt: null,
    ignoreMaxTokens: 0,
    hugeModelsMiB: 0,
    closeAfterStream: false,
    slowMetricsMs: 0,
  };
}

function bad(spec: string, expected: string): BenchgateError {
  return new BenchgateError('BG_E_USAGE', `Fault "${spec}" expects ${expected}.`);
}

function fraction(spec: string, value: string | undefined): number {
  if (value === undefined) return 1;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw bad(spec, 'a fraction between 0 and 1 after "="');
  return n;
}

/** A number read from a fault's value, or the error saying what was expected. */
function numberOf(
  spec: string,
  value: string | undefined,
  ok: (n: number) => boolean,
  expected: string,
): number {
  const n = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(n) || !ok(n)) throw bad(spec, expected);
  return n;
}

function flag(spec: string, value: string | undefined): true {
  if (value !== undefined) throw bad(spec, 'no value');
  return true;
}

type Setter = (f: Faults, spec: string, value: string | undefined) => void;

/** How each fault reads its value into `Faults`: one row per fault name. */
const SETTERS = {
  'crash-on-first-decode': (f, spec, v) => (f.crashOnFirstDecode = flag(spec, v)),
  'slow-start': (f, spec, v) =>
    (f.slowStartS = numberOf(spec, v, (n) => n >= 0, 'a number of seconds, e.g. slow-start=30')),
  slow: (f, spec, v) =>
    (f.slowFactor = numberOf(spec, v, (n) => n >= 1, 'a slow-down factor of at least 1, e.g. slow=1.5')),
  'stall-stream': (f, spec, v) => (f.stallStream = fraction(spec, v)),
  'malformed-chunk': (f, spec, v) => (f.malformedChunk = fraction(spec, v)),
  'reset-mid-stream': (f, spec, v) => (f.resetMidStream = fraction(spec, v)),
  'http-errors': (f, spec, v) => {
    if (v === undefined) throw bad(spec, 'a rate, e.g. http-errors=0.1');
    f.httpErrors = fraction(spec, v);
  },
  'stale-log': (f, spec, v) => (f.staleLog = flag(spec, v)),
  'config-drift': (f, spec, v) => (f.configDrift = flag(spec, v)),
  'restart-after': (f, spec, v) =>
    (f.restartAfter = numberOf(
      spec,
      v,
      (n) => Number.isInteger(n) && n >= 1,
      'a positive whole number of requests, e.g. restart-after=50',
    )),
  'spec-diverge': (f, spec, v) =>
    (f.specDivergeAt = numberOf(
      spec,
      v,
      (n) => Number.isInteger(n) && n >= 0,
      'a token position (a whole number from 0), e.g. spec-diverge=8',
    )),
  'ignore-max-tokens': (f, spec, v) => (f.ignoreMaxTokens = fraction(spec, v)),
  'huge-models': (f, spec, v) =>
    (f.hugeModelsMiB = numberOf(
      spec,
      v,
      (n) => n > 0 && n <= 65536,
      'a size in MiB (more than 0, at most 65536), e.g. huge-models=64',
    )),
  'close-after-stream': (f, spec, v) => (f.closeAfterStream = flag(spec, v)),
  'slow-metrics': (f, spec, v) =>
    (f.slowMetricsMs = numberOf(
      spec,
      v,
      (n) => n > 0 && n <= 60_000,
      'a delay in ms (more than 0, at most 60000), e.g. slow-metrics=500',
    )),
} satisfies Record<string, Setter>;

export const FAULT_NAMES = Object.keys(SETTERS) as (keyof typeof SETTERS)[];

export function parseFaults(specs: string[] | undefined): Faults {
  const f = noFaults();
  for (const spec of specs ?? []) {
    const eq = spec.indexOf('=');
    const name = eq >= 0 ? spec.slice(0, eq) : spec;
    const value = eq >= 0 ? spec.slice(eq + 1) : undefined;
    const set: Setter | undefined = Object.hasOwn(SETTERS, name)
      ? SETTERS[name as keyof typeof SETTERS]
      : undefined;
    if (!set)
      throw new BenchgateError(
        'BG_E_USAGE',
        `Expected a fault name among ${FAULT_NAMES.join(', ')}; found "${name}" in --fault ${spec}.`,
      );
    set(f, spec, value);
  }
  return f;
}
