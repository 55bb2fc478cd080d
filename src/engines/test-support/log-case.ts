// Test support: one log corpus case (a fixture file, its adapter and the facts a correct reader
// extracts from it) and the assertions every log corpus test makes about it.

import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { EngineAdapter, LogReading } from '../types.js';

export interface LogCase {
  file: string;
  adapter: EngineAdapter;
  /** Normalised or native facts and their values. */
  facts?: Record<string, string | number | boolean | null>;
  /** Keys a correct reader leaves unknown (a cut value is never read as "" or a guess). */
  unknown?: string[];
  ready?: number | null;
  /** Line and a fragment of the excerpt of the failed start; null when the start did not fail. */
  failedStart?: { line: number; contains: string; afterReady?: boolean } | null;
  /** How many crash signatures the current start holds (its excerpts never a mere mention of an error). */
  crashes?: number;
  acceptance?: {
    neverAccepted: boolean;
    maxMeanLength: number | null;
    lines: number;
    acceptedTokens?: number | null;
    draftedTokens?: number | null;
  } | null;
}

/** The text of a fixture in src/engines/corpus/. */
export const corpusText = (name: string): string =>
  readFileSync(new URL(`../corpus/${name}`, import.meta.url), 'utf8');

/** Reads the case's fixture with its adapter and checks every fact the case states. */
export function expectLogCase(c: LogCase): LogReading {
  const r = c.adapter.readLog(corpusText(c.file), c.file);
  for (const [key, value] of Object.entries(c.facts ?? {})) {
    expect({ key, value: r.facts[key]?.value }).toEqual({ key, value });
  }
  for (const key of c.unknown ?? []) expect({ key, fact: r.facts[key] }).toEqual({ key, fact: undefined });
  if (c.ready !== undefined) expect(r.readyLine).toBe(c.ready);
  if (c.failedStart === null) expect(r.failedStart ?? null).toBeNull();
  else if (c.failedStart) {
    expect(r.failedStart?.line).toBe(c.failedStart.line);
    expect(r.failedStart?.excerpt).toContain(c.failedStart.contains);
    expect(r.failedStart?.afterReady ?? false).toBe(c.failedStart.afterReady ?? false);
  }
  if (c.crashes !== undefined) expect(r.crashes.map((k) => k.excerpt)).toHaveLength(c.crashes);
  if (c.acceptance === null) expect(r.acceptance ?? null).toBeNull();
  else if (c.acceptance) {
    const { maxMeanLength, ...rest } = c.acceptance;
    expect(r.acceptance).toMatchObject(rest);
    if (maxMeanLength === null) expect(r.acceptance?.maxMeanLength).toBeNull();
    else expect(r.acceptance?.maxMeanLength).toBeCloseTo(maxMeanLength, 2);
  }
  return r;
}
