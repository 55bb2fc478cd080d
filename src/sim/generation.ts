// Serves one generation request: turns an API body (SGLang native /generate, OpenAI completions or
// chat) into a SimRequest, hands it to the scheduler, and writes what the scheduler emits as that
// API's response (SSE events, one per step, or one JSON body), applying the stream faults.

import type { ServerResponse } from 'node:http';
import { monoNowMs } from '../core/clock.js';
import type { Rng } from '../core/seeded-random.js';
import type { GenerationSpec, StreamFault } from './generation-spec.js';
import { greedyTokenIds } from './greedy-tokens.js';
import { SSE_DONE, sendJson, startSse } from './http-util.js';
import type { SimRequest } from './request.js';

import { completeBody } from './response-body.js';
import { type EventCounts, SseEvents, type StreamRenderer } from './sse-events.js';
import { SseWriter } from './sse-writer.js';
import { VOCAB_SIZE, wordForId } from './tokenizer.js';

/** Per-request chunk timestamps kept for GET /_sim/requests (later chunks are counted, not timed). */
export const MAX_TRUTH_CHUNKS = 4096;

export interface GenerationHooks {
  createRequest(spec: GenerationSpec, onTokens: SimRequest['onTokens']): SimRequest;
  submit(req: SimRequest): void;
  abort(req: SimRequest): void;
  /** Called once when the request has been fully answered (or abandoned), with the token ids it emitted. */
  finished(req: SimRequest, ok: boolean, outputIds: readonly number[]): void;
  track(res: ServerResponse): void;
  fault: StreamFault;
  /** spec-diverge: greedy output position from which tokens are corrupted; null when the fault is off. */
  divergeAt: number | null;
  rng: Rng;
}

/** Synthetic words by id, built on first use (the vocabulary is fixed, so each word is rendered once). */
const WORDS: string[] = [];
function word(id: number): string {
  let w = WORDS[id];
  if (w === undefined) {
    w = wordForId(id);
    if (id >= 0 && id < VOCAB_SIZE) WORDS[id] = w;
  }
  return w;
}

/**
 * Fires a stream fault half-way: `stall` leaves the response open and silent (only the scheduler
 * forgets the request), `reset` destroys the socket, `malformed` writes one unparseable event.
 * Returns true when the request ends here.
 */
function fireStreamFault(
  hooks: GenerationHooks,
  r: SimRequest,
  writer: SseWriter,
  res: ServerResponse,
): boolean {
  if (hooks.fault === 'stall') {
    hooks.abort(r);
    return true;
  }
  if (hooks.fault === 'reset') {
    hooks.abort(r);
    writer.flush();
    res.socket?.destroy();
    return true;
  }
  writer.write('data: {"text": "\\u00ff broken chunk\n\n');
  return false;
}

/** The pre-rendered SSE events of one stream. */
function eventsFor(spec: GenerationSpec, id: string, created: number): StreamRenderer {
  const identity = {
    api: spec.api,
    id,
    created,
    model: spec.model,
    continuousUsage: spec.continuousUsage,
    specGuessTokens: spec.specGuessTokens,
  };
  return spec.renderer ? spec.renderer(identity) : new SseEvents(identity);
}

/**
 * The ids a step emits: the scheduler's draws, or the prompt's greedy tokens for a greedy request;
 * also kept in `kept` (a non-streamed answer's output_ids) when given.
 */
function emittedIds(
  spec: GenerationSpec,
  r: SimRequest,
  drawn: number[],
  divergeAt: number | null,
  kept: number[] | null,
): number[] {
  const ids =
    spec.greedyKey === null
      ? drawn
      : greedyTokenIds(spec.greedyKey, r.generated - drawn.length, drawn.length, divergeAt);
  if (kept) for (const id of ids) kept.push(id);
  return ids;
}

/** A non-streaming answer: one body, recorded as one chunk of all the tokens. */
function sendWhole(res: ServerResponse, r: SimRequest, body: unknown): void {
  r.chunkWriteMs.push(monoNowMs());
  r.chunkTokens.push(r.generated);
  sendJson(res, 200, body);
}

/** The server-side counts an engine's events report at `nowMs` (usage, meta_info, timings). */
function eventCounts(spec: GenerationSpec, r: SimRequest, firstTokenMs: number, nowMs: number): EventCounts {
  return {
    promptTokens: r.promptTokens,
    cachedTokens: r.cachedTokens,
    generated: r.generated,
    verifyCt: r.verifyCt,
    acceptedDraftTokens: r.acceptedDraftTokens,
    e2eLatencyS: (nowMs - r.arrivalMs) / 1000,
    draftTokens: r.verifyCt * spec.specGuessTokens,
    promptMs: firstTokenMs - r.arrivalMs,
    predictedMs: nowMs - firstTokenMs,
  };
}

export function serveGeneration(res: ServerResponse, spec: GenerationSpec, hooks: GenerationHooks): void {
  const created = Math.floor(Date.now() / 1000);
  let text = '';
  let ended = false;
  let faultFired = false;
  let chunkIndex = 0;
  const idPrefix = spec.api === 'chat' ? 'chatcmpl-' : spec.api === 'completions' ? 'cmpl-' : '';
  let events: StreamRenderer | null = null;
  let firstTokenMs: number | null = null;
  const writer = spec.stream ? new SseWriter(res) : null;

  const finish = (ok: boolean) => {
    if (ended) return;
    ended = true;
    hooks.finished(req, ok, outputIds);
  };

  const outputIds: number[] = [];
  const onTokens = (r: SimRequest, drawn: number[]) => {
    if (ended) return;
    // every emitted id is kept: a non-streamed body returns them, the prefix cache keeps them at the end
    const ids = emittedIds(spec, r, drawn, hooks.divergeAt, outputIds);
    let piece = '';
    for (let i = 0; i < ids.length; i++) piece += ` ${word(ids[i])}`;
    // only the native API sends the cumulative text on every event; the others need it only at the end
    if (spec.api === 'native' || !spec.stream) text += piece;
    const done = r.state === 'done';
    if (writer === null) {
      if (done) {
        sendWhole(res, r, completeBody(spec, r, { text, outputIds }, idPrefix + r.id, created));
        finish(true);
      }
      return;
    }
    if (hooks.fault && !faultFired && r.generated * 2 >= r.maxNewTokens && !done) {
      faultFired = true;
      if (fireStreamFault(hooks, r, writer, res)) {
        finish(false);
        return;
      }
    }
    events ??= eventsFor(spec, idPrefix + r.id, created);
    chunkIndex++;
    if (spec.api === 'chat' && chunkIndex === 1) writer.write(events.chatRoleEvent(r.promptTokens));
    const nowMs = monoNowMs();
    firstTokenMs ??= nowMs;
    const counts = eventCounts(spec, r, firstTokenMs, nowMs);
    writer.write(events.tokenEvent(piece, text, done, counts));
    if (r.chunkWriteMs.length < MAX_TRUTH_CHUNKS) {
      r.chunkWriteMs.push(nowMs);
      r.chunkTokens.push(ids.length);
    }
    if (done) {
      if (spec.api !== 'native' && spec.includeUsage)
        writer.write(events.usageEvent(r.promptTokens, r.generated, counts));
      writer.write(SSE_DONE);
      writer.end();
      finish(true);
    }
  };

  const req = hooks.createRequest(spec, onTokens);
  hooks.track(res);
  res.on('close', () => {
    if (!ended) {
      hooks.abort(req);
      finish(false);
    }
  });
  if (spec.stream) startSse(res);
  hooks.submit(req);
}
