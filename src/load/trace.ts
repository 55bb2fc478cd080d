// Trace replay: reads public production-trace formats into arrival offsets and token lengths, and
// turns a trace's hash ids (Mooncake: one id per 512-token block of the prompt; equal ids mean equal
// blocks) into prompt text whose equal blocks are equal words, so the server's prefix cache sees the
// sharing the trace recorded. Readers fail closed: any unreadable line is an error naming file:line.

import { readFile } from 'node:fs/promises';
import { BenchgateError } from '../core/errors.js';
import { seededRng } from '../core/seeded-random.js';
import { type PromptItem, randomWords, saltedSeed } from './prompts.js';

export interface TraceEntry {
  /** Arrival offset from the trace's first request, in trace milliseconds (before the speed factor). */
  offsetMs: number;
  inputTokens: number;
  outputTokens: number;
  hashIds: number[];
}

export type TraceFormat = 'mooncake' | 'azure';

const bad = (where: string, what: string): BenchgateError =>
  new BenchgateError('BG_E_PLAN_INVALID', `workload.trace: ${where} ${what}.`);

const count = (v: unknown): number | null =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;

/** Mooncake-style JSONL: {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [..]} per line. */
export function parseMooncake(text: string, file: string): TraceEntry[] {
  const out: TraceEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const at = `${file}:${i + 1}`;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line);
    } catch {
      throw bad(at, 'is not a JSON object line');
    }
    const ts = typeof o.timestamp === 'number' && Number.isFinite(o.timestamp) ? o.timestamp : null;
    const input = count(o.input_length);
    const output = count(o.output_length);
    if (ts === null || input === null || output === null || input === 0 || output === 0)
      throw bad(at, 'needs numeric timestamp (ms) and positive integer input_length and output_length');
    const ids = o.hash_ids ?? [];
    if (!Array.isArray(ids) || !ids.every((x) => count(x) !== null))
      throw bad(at, 'has hash_ids that are not a list of non-negative integers');
    out.push({ offsetMs: ts, inputTokens: input, outputTokens: output, hashIds: ids as number[] });
  }
  return normalise(out, file);
}

/** "2023-11-16 18:15:46.6805900" (Azure traces: UTC, up to 7 fraction digits) → epoch ms, or null. */
function azureTime(s: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/.exec(s.trim());
  if (!m) return null;
  const base = Date.parse(`${m[1]}T${m[2]}Z`);
  return Number.isNaN(base) ? null : base + (m[3] ? Number(`0.${m[3]}`) * 1000 : 0);
}

/** Azure LLM inference trace CSV: header TIMESTAMP,ContextTokens,GeneratedTokens (any column order). */
export function parseAzure(text: string, file: string): TraceEntry[] {
  const lines = text.split('\n');
  const header = (lines[0] ?? '').trim().split(',');
  const col = (name: string): number => header.indexOf(name);
  const [t, c, g] = [col('TIMESTAMP'), col('ContextTokens'), col('GeneratedTokens')];
  if (t < 0 || c < 0 || g < 0)
    throw bad(`${file}:1`, 'needs the header columns TIMESTAMP, ContextTokens, GeneratedTokens');
  const out: TraceEntry[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const f = line.split(',');
    const at = azureTime(f[t] ?? '');
    const input = /^\d+$/.test(f[c] ?? '') ? Number(f[c]) : 0;
    const output = /^\d+$/.test(f[g] ?? '') ? Number(f[g]) : 0;
    if (at === null || input <= 0 || output <= 0)
      throw bad(
        `${file}:${i + 1}`,
        'needs a TIMESTAMP such as 2023-11-16 18:15:46.68 and positive token counts',
      );
    out.push({ offsetMs: at, inputTokens: input, outputTokens: output, hashIds: [] });
  }
  return normalise(out, file);
}

/** Sorted by arrival, offsets relative to the first request; an empty trace is an error. */
function normalise(entries: TraceEntry[], file: string): TraceEntry[] {
  if (entries.length === 0) throw bad(file, 'holds no requests');
  entries.sort((a, b) => a.offsetMs - b.offsetMs);
  const t0 = entries[0].offsetMs;
  return entries.map((e) => ({ ...e, offsetMs: e.offsetMs - t0 }));
}

export async function readTrace(path: string, format?: TraceFormat): Promise<TraceEntry[]> {
  const kind = format ?? (path.endsWith('.csv') ? 'azure' : 'mooncake');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw bad(`cannot read "${path}"`, `(${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return kind === 'azure' ? parseAzure(text, path) : parseMooncake(text, path);
}

/** Send offsets in real ms for a replay at `speed` (2 = twice as fast). */
export function replayOffsetsMs(entries: TraceEntry[], speed: number): number[] {
  return entries.map((e) => e.offsetMs / speed);
}

/**
 * Prompt text for each entry: one block of `blockTokens` words per hash id (the same id gives the same
 * words, so the prefix is shared), then words unique to the request up to input_length. Lengths are in
 * words (about one token each); the tokenizer's count is kept as the client's input count. `salt` (the
 * run's salt mixed with the level) gives other words, so a replay at another speed or in another run
 * shares only what the trace declares, never a block cached by an earlier replay.
 */
export function tracePrompts(
  entries: TraceEntry[],
  blockTokens: number,
  seed: number,
  salt = 0,
): PromptItem[] {
  const blocks = new Map<number, string>();
  const block = (id: number): string => {
    let b = blocks.get(id);
    if (b === undefined) {
      b = randomWords(seededRng(saltedSeed(seed * 1_000_003 + id * 31 + 7, salt)), blockTokens);
      blocks.set(id, b);
    }
    return b;
  };
  return entries.map((e, i) => {
    const parts: string[] = [];
    let words = 0;
    for (const id of e.hashIds) {
      if (words + blockTokens > e.inputTokens) break;
      parts.push(block(id));
      words += blockTokens;
    }
    if (words < e.inputTokens)
      parts.push(randomWords(seededRng(saltedSeed(seed * 7919 + i * 13 + 3, salt)), e.inputTokens - words));
    return { prompt: parts.join(' '), inputTokens: e.inputTokens, outputTokens: e.outputTokens };
  });
}
