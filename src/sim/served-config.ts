// The configuration a simulated engine serves after its own start-up derivations: the one shape every
// flavour's argument parser produces and every surface, log and metric reads.

import { isSecretKey, REDACTED } from '../core/redact.js';
import type { SimFlavor } from './api.js';

/** The environment the simulated engine sees. */
export type SimEnv = Record<string, string | undefined>;

export interface StartupLogEntry {
  level: 'INFO' | 'WARNING';
  /** Python source of the message (SGLang does not print it: its format is `[time] message`). */
  where: string;
  text: string;
}

/** The configuration the simulated engine serves, after the engine's own derivations. */
export interface ServedConfig {
  flavor: SimFlavor;
  modelPath: string;
  servedModelName: string;
  tpSize: number;
  dpSize: number;
  dtype: string;
  quantization: string | null;
  contextLength: number;
  maxRunningRequests: number;
  maxTotalNumTokens: number;
  chunkedPrefillSize: number;
  disableOverlapSchedule: boolean;
  specAlgorithm: string | null;
  specDraftModelPath: string | null;
  specNumSteps: number | null;
  specTopk: number | null;
  specNumDraftTokens: number | null;
  specV2: boolean;
  decodeLogInterval: number;
  randomSeed: number;
  apiKey: string | null;
  /** Engine-native argument values in the engine's names (ServerArgs fields / vllm args). */
  engineArgs: Record<string, unknown>;
  /** Engine-native names given on the command line (vllm `non-default args`). */
  givenArgs: Record<string, unknown>;
  warnings: StartupLogEntry[];
  /** Set when the engine would refuse to start (e.g. spec v2 with top-k > 1). */
  startError: { type: string; message: string } | null;
}

/** The flags given on the command line with their values, secret ones (`--api-key`) redacted. */
export function redactedGivenArgs(given: string[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of given) out[k] = isSecretKey(k) ? REDACTED : values[k];
  return out;
}

/** Draft tokens proposed per verify step (num draft tokens − 1); 0 without speculative decoding. */
export function specGuessTokens(c: ServedConfig): number {
  return c.specAlgorithm && c.specNumDraftTokens ? c.specNumDraftTokens - 1 : 0;
}

export function envFlagTrue(v: string | undefined): boolean {
  return v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());
}
