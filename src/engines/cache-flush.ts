// Emptying an engine's prefix cache before a level (load.cache: flush), through the endpoint each engine
// offers, with what it answered as evidence. SGLang: POST /flush_cache (400 while requests run). vLLM:
// POST /reset_prefix_cache, registered only when the server runs with VLLM_SERVER_DEV_MODE=1 (404
// otherwise). llama.cpp: POST /slots/{id}?action=erase for every slot, which every build from 2025 to
// 2026 refuses with 501 unless the server was started with --slot-save-path. Whatever the engine does
// not do is said, never assumed done.

import type { TargetHttp } from './types.js';

/** What a flush before a level did: whether the cache was emptied, how, and what the server said. */
export interface CacheFlush {
  flushed: boolean;
  /** The request(s) sent, e.g. "POST /flush_cache". */
  how: string;
  /** The server's answer, or why nothing could be sent. */
  evidence: string;
  /** What the user can do when the flush was not done. */
  hint?: string;
}

const TIMEOUT_MS = 10_000;

function answered(status: number | null, text: string, error?: { message: string }): string {
  if (status === null) return `no answer (${error?.message ?? 'connection failed'})`;
  const body = text.replace(/\s+/g, ' ').trim().slice(0, 160);
  return `HTTP ${status}${body ? `: ${body}` : ''}`;
}

/** A one-request flush's outcome: done on 200, else the answer and the hint for that status, if any. */
function outcome(
  how: string,
  doc: { status: number | null; text: string; error?: { message: string } },
  hints: Record<number, string>,
): CacheFlush {
  const evidence = answered(doc.status, doc.text, doc.error);
  if (doc.status === 200) return { flushed: true, how, evidence };
  const hint = doc.status === null ? undefined : hints[doc.status];
  return { flushed: false, how, evidence, ...(hint ? { hint } : {}) };
}

/** SGLang refuses a flush while requests run or wait (a level's cancelled streams finishing): try again. */
const SGLANG_BUSY_TRIES = 10;
const SGLANG_BUSY_PAUSE_MS = 500;

export async function flushSglang(http: TargetHttp): Promise<CacheFlush> {
  let doc = await http.request('/flush_cache', { method: 'POST', timeoutMs: TIMEOUT_MS });
  for (let i = 1; i < SGLANG_BUSY_TRIES && doc.status === 400; i++) {
    await new Promise((r) => setTimeout(r, SGLANG_BUSY_PAUSE_MS));
    doc = await http.request('/flush_cache', { method: 'POST', timeoutMs: TIMEOUT_MS });
  }
  return outcome('POST /flush_cache', doc, {
    400: `SGLang flushes only an idle server: requests were still running or waiting after ${SGLANG_BUSY_TRIES} tries.`,
    // rust/sglang-server/src/api_server (main 2026-08-22) routes no /flush_cache
    404: 'SGLang serves /flush_cache from its Python HTTP server only: the Rust one (SGLANG_RUST_SERVER=1, from 2026-07-31) has none; start the server without that variable to flush the cache between levels.',
  });
}

export async function flushVllm(http: TargetHttp): Promise<CacheFlush> {
  const doc = await http.request('/reset_prefix_cache', { method: 'POST', timeoutMs: TIMEOUT_MS });
  return outcome('POST /reset_prefix_cache', doc, {
    404: 'vLLM offers /reset_prefix_cache only when the server runs with VLLM_SERVER_DEV_MODE=1.',
  });
}

/** The slot count from /props (total_slots), or null when it does not say. */
async function llamacppSlots(http: TargetHttp): Promise<number | null> {
  const doc = await http.request('/props', { timeoutMs: TIMEOUT_MS });
  const n = (doc.json as { total_slots?: unknown } | undefined)?.total_slots;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 4096 ? n : null;
}

export async function flushLlamacpp(http: TargetHttp): Promise<CacheFlush> {
  const slots = await llamacppSlots(http);
  const how = `POST /slots/{0..${slots === null ? '?' : slots - 1}}?action=erase`;
  if (slots === null)
    return {
      flushed: false,
      how,
      evidence: 'GET /props gave no total_slots, so the slots to erase are unknown',
    };
  let erased = 0;
  for (let id = 0; id < slots; id++) {
    const doc = await http.request(`/slots/${id}?action=erase`, { method: 'POST', timeoutMs: TIMEOUT_MS });
    if (doc.status !== 200) {
      const evidence = `slot ${id}: ${answered(doc.status, doc.text, doc.error)}`;
      const hint =
        doc.status === 501
          ? 'llama-server erases a slot only when started with --slot-save-path DIR.'
          : undefined;
      return { flushed: false, how, evidence, hint };
    }
    const n = (doc.json as { n_erased?: unknown } | undefined)?.n_erased;
    if (typeof n === 'number') erased += n;
  }
  return { flushed: true, how, evidence: `${slots} slots erased, ${erased} cached tokens dropped` };
}
