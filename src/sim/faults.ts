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
}

export const FAULT_NAMES = [
  'crash-on-first-decode',
  'slow-start',
  'slow',
  'stall-stream',
  'malformed-chunk',
  'reset-mid-stream',
  'http-errors',
  'stale-log',
  'config-drift',
  'restart-after',
  'spec-diverge',
] as const;

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

export function parseFaults(specs: string[] | undefined): Faults {
  const f = noFaults();
  for (const spec of specs ?? []) {
    const eq = spec.indexOf('=');
    const name = eq >= 0 ? spec.slice(0, eq) : spec;
    const value = eq >= 0 ? spec.slice(eq + 1) : undefined;
    const noValue = () => {
      if (value !== undefined) throw bad(spec, 'no value');
    };
    switch (name) {
      case 'crash-on-first-decode':
        noValue();
        f.crashOnFirstDecode = true;
        break;
      case 'slow-start': {
        const n = Number(value);
        if (value === undefined || value.trim() === '' || !Number.isFinite(n) || n < 0) {
          throw bad(spec, 'a number of seconds, e.g. slow-start=30');
        }
        f.slowStartS = n;
        break;
      }
      case 'slow': {
        const n = Number(value);
        if (value === undefined || value.trim() === '' || !Number.isFinite(n) || n < 1)
          throw bad(spec, 'a slow-down factor of at least 1, e.g. slow=1.5');
        f.slowFactor = n;
        break;
      }
      case 'stall-stream':
        f.stallStream = fraction(spec, value);
        break;
      case 'malformed-chunk':
        f.malformedChunk = fraction(spec, value);
        break;
      case 'reset-mid-stream':
        f.resetMidStream = fraction(spec, value);
        break;
      case 'http-errors':
        if (value === undefined) throw bad(spec, 'a rate, e.g. http-errors=0.1');
        f.httpErrors = fraction(spec, value);
        break;
      case 'stale-log':
        noValue();
        f.staleLog = true;
        break;
      case 'config-drift':
        noValue();
        f.configDrift = true;
        break;
      case 'restart-after': {
        const n = Number(value);
        if (value === undefined || !Number.isInteger(n) || n < 1)
          throw bad(spec, 'a positive whole number of requests, e.g. restart-after=50');
        f.restartAfter = n;
        break;
      }
      case 'spec-diverge': {
        const n = Number(value);
        if (value === undefined || value.trim() === '' || !Number.isInteger(n) || n < 0)
          throw bad(spec, 'a token position (a whole number from 0), e.g. spec-diverge=8');
        f.specDivergeAt = n;
        break;
      }
      default:
        throw new BenchgateError(
          'BG_E_USAGE',
          `Expected a fault name among ${FAULT_NAMES.join(', ')}; found "${name}" in --fault ${spec}.`,
        );
    }
  }
  return f;
}
