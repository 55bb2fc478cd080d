// Reads only what the metrics need from one SSE `data:` payload, without JSON.parse on the hot path:
// token counts (usage / meta_info), whether visible content or reasoning arrived, finish reason, errors.
// Keys are found by their quoted spelling, which cannot occur unescaped inside a JSON string value.

export interface ChunkFacts {
  /** Cumulative completion tokens the server reported in this chunk (usage or meta_info); -1 if absent. */
  completionTokens: number;
  /** Prompt tokens the server reported in this chunk; -1 if absent. */
  promptTokens: number;
  /** Prompt tokens served from the prefix cache (meta_info / usage.prompt_tokens_details cached_tokens); -1 if absent. */
  cachedTokens: number;
  /** Verify steps: SGLang native meta_info.spec_verify_ct, or llama-server timings (predicted_n − 1 − draft_n_accepted); -1 if absent. */
  specVerifySteps: number;
  /** Raw JSON-string length of visible content in this chunk (0 when none). */
  contentChars: number;
  /** Raw JSON-string length of reasoning in this chunk (0 when none). */
  reasoningChars: number;
  /** Finish reason when this chunk carries one, else null. */
  finishReason: string | null;
  /** Set when the payload is an error event rather than a generation chunk. */
  errorMessage: string | null;
}

/** Reusable output object: the scanner overwrites it for each chunk so the hot path allocates nothing. */
export function emptyFacts(): ChunkFacts {
  return {
    completionTokens: -1,
    promptTokens: -1,
    cachedTokens: -1,
    specVerifySteps: -1,
    contentChars: 0,
    reasoningChars: 0,
    finishReason: null,
    errorMessage: null,
  };
}

function reset(f: ChunkFacts): void {
  f.completionTokens = -1;
  f.promptTokens = -1;
  f.cachedTokens = -1;
  f.specVerifySteps = -1;
  f.contentChars = 0;
  f.reasoningChars = 0;
  f.finishReason = null;
  f.errorMessage = null;
}

function skipSpaces(s: string, i: number): number {
  let c = s.charCodeAt(i);
  while (c === 32 || c === 9 || c === 10 || c === 13) c = s.charCodeAt(++i);
  return i;
}

/** Integer value following `key` (e.g. `"completion_tokens":`), searching from `from`; -1 when absent or null. */
export function intAfter(s: string, key: string, from = 0): number {
  const k = s.indexOf(key, from);
  if (k < 0) return -1;
  let i = skipSpaces(s, k + key.length);
  let n = 0;
  let digits = 0;
  for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i)) {
    n = n * 10 + (c - 48);
    digits++;
  }
  return digits > 0 ? n : -1;
}

/**
 * Length of the JSON string value following `key` (0 when absent, null or empty), counting raw
 * characters between the quotes (escapes count as their raw length: a cheap size estimate).
 */
function stringLenAfter(s: string, key: string): number {
  const k = s.indexOf(key);
  if (k < 0) return 0;
  let i = skipSpaces(s, k + key.length);
  if (s.charCodeAt(i) !== 34) return 0;
  const start = ++i;
  for (;;) {
    const q = s.indexOf('"', i);
    if (q < 0) return s.length - start;
    let bs = 0;
    for (let j = q - 1; j >= start && s.charCodeAt(j) === 92; j--) bs++;
    if (bs % 2 === 0) return q - start;
    i = q + 1;
  }
}

/** The finish reason following `"finish_reason":`: a string, an object's "type" (SGLang native), or null. */
function finishAfter(s: string): string | null {
  const key = '"finish_reason":';
  const k = s.indexOf(key);
  if (k < 0) return null;
  const i = skipSpaces(s, k + key.length);
  const c = s.charCodeAt(i);
  if (c === 34) {
    const end = s.indexOf('"', i + 1);
    return end < 0 ? null : s.slice(i + 1, end);
  }
  if (c === 123) {
    const t = s.indexOf('"type":', i);
    if (t < 0) return 'finished';
    const j = skipSpaces(s, t + 7);
    if (s.charCodeAt(j) !== 34) return 'finished';
    const end = s.indexOf('"', j + 1);
    return end < 0 ? 'finished' : s.slice(j + 1, end);
  }
  return null;
}

function errorIn(s: string): string | null {
  // `{"error": ...}` (vLLM/OpenAI) or `{"object":"error", "message": ...}`
  const i = skipSpaces(s, 1);
  const isErrorKey = s.startsWith('"error"', i);
  if (!isErrorKey && s.indexOf('"object":"error"') < 0) return null;
  const m = s.indexOf('"message":');
  if (m < 0) return s.slice(0, 200);
  const j = skipSpaces(s, m + 10);
  const len = stringLenAfter(s, '"message":');
  return s.slice(j + 1, j + 1 + Math.min(len, 200));
}

/**
 * Scans one payload. Returns false when it is not a JSON object (malformed); a full JSON.parse
 * is never done here — a truncated object is caught by its missing closing brace.
 */
export function scanChunk(payload: string, native: boolean, out: ChunkFacts): boolean {
  reset(out);
  let end = payload.length - 1;
  let c = payload.charCodeAt(end);
  while (c === 32 || c === 13 || c === 9) c = payload.charCodeAt(--end);
  if (payload.charCodeAt(0) !== 123 || c !== 125) return false;
  if (payload.charCodeAt(1) === 34 && payload.startsWith('"error"', 1)) {
    out.errorMessage = errorIn(payload);
    return true;
  }
  if (native) {
    const meta = payload.indexOf('"meta_info":');
    if (meta < 0) {
      out.errorMessage = errorIn(payload);
      return out.errorMessage !== null;
    }
    out.completionTokens = intAfter(payload, '"completion_tokens":', meta);
    out.promptTokens = intAfter(payload, '"prompt_tokens":', meta);
    out.cachedTokens = intAfter(payload, '"cached_tokens":', meta);
    out.specVerifySteps = intAfter(payload, '"spec_verify_ct":', meta);
    out.contentChars = stringLenAfter(payload, '"text":');
    out.finishReason = finishAfter(payload);
    return true;
  }
  const usage = payload.indexOf('"usage":');
  if (usage >= 0 && payload.charCodeAt(skipSpaces(payload, usage + 8)) === 123) {
    out.completionTokens = intAfter(payload, '"completion_tokens":', usage);
    out.promptTokens = intAfter(payload, '"prompt_tokens":', usage);
    out.cachedTokens = intAfter(payload, '"cached_tokens":', usage);
  }
  // llama-server's last event has `timings` with draft_n_accepted under speculative decoding: the first
  // token comes from the prompt pass and every verify step yields its accepted drafts plus one token.
  const timings = payload.indexOf('"timings":');
  if (timings >= 0) {
    // cache_n: prompt tokens reused from the slot's cache (builds of late 2025 say it only here, not in
    // usage); builds before cache_n (b4747) give only prompt_n, the prompt tokens evaluated, so the rest
    // of usage.prompt_tokens came from the cache
    if (out.cachedTokens < 0) out.cachedTokens = intAfter(payload, '"cache_n":', timings);
    if (out.cachedTokens < 0 && out.promptTokens >= 0) {
      const evaluated = intAfter(payload, '"prompt_n":', timings);
      if (evaluated >= 0 && evaluated <= out.promptTokens) out.cachedTokens = out.promptTokens - evaluated;
    }
    const accepted = intAfter(payload, '"draft_n_accepted":', timings);
    const predicted = intAfter(payload, '"predicted_n":', timings);
    if (accepted >= 0 && predicted - 1 - accepted > 0) out.specVerifySteps = predicted - 1 - accepted;
  }
  if (payload.indexOf('"choices":') < 0) {
    if (usage < 0) {
      out.errorMessage = errorIn(payload);
      return out.errorMessage !== null;
    }
    return true;
  }
  // completions: "text"; chat: "content" plus "reasoning_content" (SGLang, older vLLM) or "reasoning" (vLLM)
  out.contentChars = stringLenAfter(payload, '"content":') || stringLenAfter(payload, '"text":');
  out.reasoningChars =
    stringLenAfter(payload, '"reasoning_content":') || stringLenAfter(payload, '"reasoning":');
  out.finishReason = finishAfter(payload);
  return true;
}
