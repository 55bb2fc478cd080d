// Serves one generation request: turns an API body (SGLang native /generate, OpenAI completions or
// chat) into a SimRequest, hands it to the scheduler, and writes what the scheduler emits as that
// API's response (SSE events, one per step, or one JSON body), applying the stream faults.

import type { ServerResponse } from 'node:http';
import { monoNowMs } from '../core/clock.js';
import type { Rng } from '../core/seeded-random.js';
import { SSE_DONE, sendJson, startSse } from './http-util.js';
import type { SimRequest } from './request.js';
import { SseEvents } from './sse-events.js';
import { SseWriter } from './sse-writer.js';
import { VOCAB_SIZE, wordForId } from './tokenizer.js';

/** Per-request chunk timestamps kept for GET /_sim/requests (later chunks are counted, not timed). */
export const MAX_TRUTH_CHUNKS = 4096;

export type ApiKind = 'native' | 'completions' | 'chat';

export interface GenerationSpec {
  api: ApiKind;
  model: string;
  promptTokens: number;
  maxNewTokens: number;
  stream: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  /** Whether meta_info carries spec_verify_ct / spec_accept_length. */
  speculative: boolean;
}

/** Which stream fault (if any) hits this request, decided at arrival. */
export type StreamFault = 'stall' | 'malformed' | 'reset' | null;

export interface GenerationHooks {
  createRequest(spec: GenerationSpec, onTokens: SimRequest['onTokens']): SimRequest;
  submit(req: SimRequest): void;
  abort(req: SimRequest): void;
  /** Called once when the request has been fully answered (or abandoned). */
  finished(req: SimRequest, ok: boolean): void;
  track(res: ServerResponse): void;
  fault: StreamFault;
  rng: Rng;
}

function usage(req: SimRequest) {
  return {
    prompt_tokens: req.promptTokens,
    total_tokens: req.promptTokens + req.generated,
    completion_tokens: req.generated,
  };
}

function metaInfo(req: SimRequest, spec: GenerationSpec, done: boolean) {
  const meta: Record<string, unknown> = {
    id: req.id,
    finish_reason: done ? { type: 'length', length: req.generated } : null,
    prompt_tokens: req.promptTokens,
    weight_version: 'default',
    total_retractions: 0,
    completion_tokens: req.generated,
    cached_tokens: 0,
    e2e_latency: (monoNowMs() - req.arrivalMs) / 1000,
  };
  if (spec.speculative) {
    meta.spec_verify_ct = req.verifyCt;
    meta.spec_accept_length = req.verifyCt > 0 ? req.generated / req.verifyCt : 0;
  }
  return meta;
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

export function serveGeneration(res: ServerResponse, spec: GenerationSpec, hooks: GenerationHooks): void {
  const created = Math.floor(Date.now() / 1000);
  let text = '';
  let ended = false;
  let faultFired = false;
  let chunkIndex = 0;
  const idPrefix = spec.api === 'chat' ? 'chatcmpl-' : spec.api === 'completions' ? 'cmpl-' : '';
  let events: SseEvents | null = null;
  const writer = spec.stream ? new SseWriter(res) : null;

  const finish = (ok: boolean) => {
    if (ended) return;
    ended = true;
    hooks.finished(req, ok);
  };

  const onTokens = (r: SimRequest, ids: number[]) => {
    if (ended) return;
    let piece = '';
    for (let i = 0; i < ids.length; i++) piece += ` ${word(ids[i])}`;
    // only the native API sends the cumulative text on every event; the others need it only at the end
    if (spec.api === 'native' || !spec.stream) text += piece;
    const done = r.state === 'done';
    if (writer === null) {
      if (done) {
        r.chunkWriteMs.push(monoNowMs());
        r.chunkTokens.push(r.generated);
        sendJson(res, 200, fullBody(r));
        finish(true);
      }
      return;
    }
    if (hooks.fault && !faultFired && r.generated * 2 >= r.maxNewTokens && !done) {
      faultFired = true;
      if (hooks.fault === 'stall') {
        // the response stays open and silent; only the scheduler forgets the request
        hooks.abort(r);
        finish(false);
        return;
      }
      if (hooks.fault === 'reset') {
        hooks.abort(r);
        writer.flush();
        res.socket?.destroy();
        finish(false);
        return;
      }
      writer.write('data: {"text": "\\u00ff broken chunk\n\n');
    }
    events ??= new SseEvents({
      api: spec.api,
      id: idPrefix + r.id,
      created,
      model: spec.model,
      continuousUsage: spec.continuousUsage,
      speculative: spec.speculative,
    });
    chunkIndex++;
    if (spec.api === 'chat' && chunkIndex === 1) writer.write(events.chatRoleEvent(r.promptTokens));
    const nowMs = monoNowMs();
    writer.write(
      events.tokenEvent(piece, text, done, {
        promptTokens: r.promptTokens,
        generated: r.generated,
        verifyCt: r.verifyCt,
        e2eLatencyS: (nowMs - r.arrivalMs) / 1000,
      }),
    );
    if (r.chunkWriteMs.length < MAX_TRUTH_CHUNKS) {
      r.chunkWriteMs.push(nowMs);
      r.chunkTokens.push(ids.length);
    }
    if (done) {
      if (spec.api !== 'native' && spec.includeUsage)
        writer.write(events.usageEvent(r.promptTokens, r.generated));
      writer.write(SSE_DONE);
      writer.end();
      finish(true);
    }
  };

  const fullBody = (r: SimRequest): unknown => {
    if (spec.api === 'native') return { text, output_ids: [], meta_info: metaInfo(r, spec, true) };
    const base = { id: idPrefix + r.id, created, model: spec.model };
    if (spec.api === 'chat') {
      return {
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, reasoning_content: null, tool_calls: [] },
            logprobs: null,
            finish_reason: 'length',
            stop_reason: null,
          },
        ],
        usage: usage(r),
      };
    }
    return {
      ...base,
      object: 'text_completion',
      choices: [{ index: 0, text, logprobs: null, finish_reason: 'length', stop_reason: null }],
      usage: usage(r),
    };
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
