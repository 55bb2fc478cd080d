// The record-keeping half of one streaming request: the transport reports head, body reads, end or
// failure (transport.ts), and this class turns them into a RequestRecord — SSE events scanned
// minimally, token counts, one lazy timer for the three deadlines, and exactly one stable error code
// when the request fails. It never throws.

import { performance } from 'node:perf_hooks';
import type { RequestErrorCode } from '../core/errors.js';
import type { RequestRecord } from '../records/request-record.js';
import { type ChunkFacts, emptyFacts, scanChunk } from './chunk-scan.js';
import { distributeTotal } from './distribute-total.js';
import { chunkContent } from './reply-text.js';
import { SseScanner } from './sse-scanner.js';
import { nextDeadline, passedDeadline, type StreamClock } from './stream-deadlines.js';
import type { TransportHandlers } from './transport.js';

/** Per-request deadlines in ms; their defaults live in the plan schema (target.timeouts). */
export interface StreamTimeouts {
  connectMs: number;
  ttftMs: number;
  stallMs: number;
  totalMs: number;
}

/** Largest single SSE event kept (its data lines joined); a bigger one fails the request. */
export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

const BODY_PREVIEW_BYTES = 300;

/**
 * Most output tokens read from one stream: twice what max_tokens asked for, plus 64 (room for a
 * speculative server's overshoot). A stream that goes on past it ignores max_tokens; it is failed with
 * BG_E_OUTPUT_OVERRUN and no longer read, so its record (and memory) stays bounded.
 */
export function outputTokenBound(requestedOutputTokens: number): number {
  return 2 * Math.max(0, requestedOutputTokens) + 64;
}

export function preview(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > BODY_PREVIEW_BYTES ? `${oneLine.slice(0, BODY_PREVIEW_BYTES)}…` : oneLine;
}

export interface StreamRunSpec {
  rec: RequestRecord;
  timeouts: StreamTimeouts;
  originMs: number;
  native: boolean;
  perChunkServer: boolean;
  pathname: string;
  maxEventBytes: number;
  signal: AbortSignal | undefined;
  /** Opt-in (multi-turn): each chunk's visible text is appended here; null on the normal path. */
  replyText: string[] | null;
  resolve(rec: RequestRecord): void;
}

export class StreamRun implements TransportHandlers {
  private readonly s: StreamRunSpec;
  private readonly rec: RequestRecord;
  private readonly facts: ChunkFacts = emptyFacts();
  private readonly chunkChars: number[] = [];
  private readonly scanner: SseScanner;
  private lastCumulative = 0;
  /** Output tokens counted so far, against outputTokenBound. */
  private tokensSeen = 0;
  private sawServerPerChunk = false;
  private sawDone = false;
  private done = false;
  private sentAbs = 0;
  private lastDataAbs = 0;
  /** Arrival time of the read being scanned: every event in one read shares it. */
  private readAbs = 0;
  private timer: NodeJS.Timeout | null = null;
  cancelTransport: (() => void) | null = null;
  // non-stream answers (error status, HTML): status, content type and the first bytes of the body
  private plainStatus = 0;
  private plainType = '';
  private plainText: string | null = null;

  constructor(spec: StreamRunSpec) {
    this.s = spec;
    this.rec = spec.rec;
    this.scanner = new SseScanner(
      (d) => this.onEvent(d),
      spec.maxEventBytes,
      (n) => this.onOversize(n),
    );
    spec.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The request was handed to the transport now: deadlines start. */
  markSent(atAbs: number): void {
    this.sentAbs = atAbs;
    this.lastDataAbs = atAbs;
    this.rec.sentMs = atAbs - this.s.originMs;
    this.armTimer();
  }

  finish(code: RequestErrorCode | null, message: string, atAbs = performance.now()): void {
    if (this.done) return;
    this.done = true;
    this.scanner.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.s.signal?.removeEventListener('abort', this.onAbort);
    this.rec.endMs = atAbs - this.s.originMs;
    if (code) this.rec.error = { code, message };
    this.finalizeTokens();
    if (code && this.cancelTransport) this.cancelTransport();
    this.s.resolve(this.rec);
  }

  private finalizeTokens(): void {
    const rec = this.rec;
    const clientCount = rec.chunkTokens.length;
    if (this.sawServerPerChunk && this.s.perChunkServer) {
      rec.chunkTokenSource = 'server-per-chunk';
      // sum of the per-chunk deltas: disagrees with the server total only if chunks were lost or counts went backwards
      rec.outputTokensClient = rec.chunkTokens.reduce((a, b) => a + b, 0);
    } else if (rec.outputTokensServer !== null && clientCount > 0) {
      rec.outputTokensClient = clientCount;
      rec.chunkTokens = distributeTotal(rec.outputTokensServer, this.chunkChars);
      rec.chunkTokenSource = 'server-total-distributed';
    } else {
      rec.outputTokensClient = clientCount;
      rec.chunkTokenSource = 'one-per-chunk';
    }
  }

  private readonly onAbort = (): void =>
    this.finish('BG_E_ABORTED', 'the request was aborted before it finished.');

  /** One lazy timer for the deadlines (stream-deadlines.ts); reads only update lastDataAbs. */
  private armTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    const next = nextDeadline(this.s.timeouts, this.clock());
    this.timer = setTimeout(this.onTimer, Math.max(1, next - performance.now()));
  }

  private clock(): StreamClock {
    return { sentAbs: this.sentAbs, lastDataAbs: this.lastDataAbs, chunks: this.rec.chunkMs.length };
  }

  private readonly onTimer = (): void => {
    if (this.done) return;
    const passed = passedDeadline(this.s.timeouts, this.clock(), performance.now());
    if (passed) this.finish(passed.code, passed.message);
    else this.armTimer();
  };

  private onOversize(bytes: number): void {
    const mib = (this.s.maxEventBytes / 1048576).toFixed(1);
    this.finish(
      'BG_E_SSE_EVENT_TOO_LARGE',
      `one SSE event grew past ${bytes} bytes, over the ${mib} MiB cap for a single event, after ${this.rec.chunkMs.length} token chunks.`,
      this.readAbs,
    );
  }

  private onEvent(data: string): void {
    const atAbs = this.readAbs;
    if (data.length === 6 && data === '[DONE]') {
      this.sawDone = true;
      return;
    }
    const facts = this.facts;
    if (!scanChunk(data, this.s.native, facts)) {
      this.finish('BG_E_MALFORMED_CHUNK', `a streamed chunk is not a JSON object: ${preview(data)}`, atAbs);
      return;
    }
    if (facts.errorMessage !== null) {
      const after = `after ${this.rec.chunkMs.length} token chunks`;
      const msg = `the server sent an error event ${after}: ${preview(facts.errorMessage)}`;
      this.finish('BG_E_STREAM_ERROR_EVENT', msg, atAbs);
      return;
    }
    this.countEvent(facts, atAbs);
    if (this.s.replyText !== null && facts.contentChars > 0) this.s.replyText.push(chunkContent(data));
  }

  private countEvent(facts: ChunkFacts, atAbs: number): void {
    const rec = this.rec;
    const perChunkServer = this.s.perChunkServer;
    if (facts.promptTokens >= 0) rec.inputTokensServer = facts.promptTokens;
    if (facts.cachedTokens >= 0) rec.cachedInputTokens = facts.cachedTokens;
    if (facts.specVerifySteps >= 0) rec.specVerifySteps = facts.specVerifySteps;
    let tokens = 0;
    const visible = facts.contentChars > 0;
    const carries = visible || facts.reasoningChars > 0;
    if (facts.completionTokens >= 0) {
      // cumulative so far (per-chunk usage / meta_info) or the final total (usage-only last chunk)
      rec.outputTokensServer = facts.completionTokens;
      if (perChunkServer && (this.sawServerPerChunk || carries)) {
        this.sawServerPerChunk = true;
        tokens = facts.completionTokens - this.lastCumulative;
        if (tokens > 0) this.lastCumulative = facts.completionTokens;
        else tokens = 0;
      }
    }
    if (!this.sawServerPerChunk && carries) tokens = 1;
    if (tokens > 0) {
      const rel = atAbs - this.s.originMs;
      rec.chunkMs.push(rel);
      rec.chunkTokens.push(tokens);
      if (rec.chunkMs.length === 1) this.armTimer(); // the stall clock starts now
      if (!perChunkServer) this.chunkChars.push(facts.contentChars + facts.reasoningChars);
      if (rec.firstContentMs === null && (this.s.native || visible)) rec.firstContentMs = rel;
    }
    if (facts.finishReason !== null) rec.finishReason = facts.finishReason;
    this.tokensSeen += tokens;
    if (this.tokensSeen > outputTokenBound(rec.requestedOutputTokens)) this.overrun(atAbs);
  }

  private overrun(atAbs: number): void {
    const asked = this.rec.requestedOutputTokens;
    this.finish(
      'BG_E_OUTPUT_OVERRUN',
      `the server streamed ${this.tokensSeen} output tokens for max_tokens ${asked} and had not finished; benchgate stopped reading at the bound of ${outputTokenBound(asked)} (2 × max_tokens + 64).`,
      atAbs,
    );
  }

  /** The transport sends the request again on a new connection: counted, never a failure. */
  onRetry(): void {
    if (this.done) return;
    this.rec.retries = (this.rec.retries ?? 0) + 1;
  }

  onHead(status: number, contentType: string, atAbs: number): void {
    this.lastDataAbs = atAbs;
    if (this.done) return;
    this.rec.headersMs = atAbs - this.s.originMs;
    this.rec.httpStatus = status;
    if (status < 200 || status >= 300 || !contentType.includes('text/event-stream')) {
      this.plainStatus = status;
      this.plainType = contentType;
      this.plainText = '';
    }
  }

  onBody(buf: Buffer, start: number, end: number, atAbs: number): void {
    this.lastDataAbs = atAbs;
    if (this.done) return;
    if (this.plainText !== null) {
      if (this.plainText.length < 2048)
        this.plainText += buf.toString('utf8', start, Math.min(end, start + 2048));
      return;
    }
    this.readAbs = atAbs;
    this.scanner.feed(buf, start, end);
  }

  onEnd(atAbs: number): void {
    if (this.done) return;
    if (this.plainText !== null) {
      this.settlePlain();
      return;
    }
    this.readAbs = atAbs;
    this.scanner.flush();
    if (this.done) return;
    if (this.rec.finishReason === null && !this.sawDone) {
      const chunks = this.rec.chunkMs.length;
      const msg = `the stream ended without a finish reason after ${chunks} token chunks.`;
      this.finish('BG_E_STREAM_TRUNCATED', msg, atAbs);
      return;
    }
    if (this.rec.finishReason === null) this.rec.finishReason = 'done';
    this.finish(null, '', atAbs);
  }

  private settlePlain(): void {
    const text = preview(this.plainText ?? '') || '(empty body)';
    const path = this.s.pathname;
    if (this.plainStatus < 200 || this.plainStatus >= 300)
      this.finish('BG_E_HTTP_STATUS', `HTTP ${this.plainStatus} from POST ${path}: ${text}`);
    else
      this.finish(
        'BG_E_NOT_SSE',
        `expected an event stream (text/event-stream) from POST ${path}, got "${this.plainType || 'no content-type'}": ${text}`,
      );
  }

  onFail(phase: 'connect' | 'response', detail: string, atAbs: number): void {
    if (this.done) return;
    if (phase === 'connect' || this.rec.headersMs === null) {
      this.finish('BG_E_CONNECT', detail, atAbs);
    } else if (this.plainText !== null) {
      this.settlePlain();
    } else {
      const msg = `${detail.replace(/\.$/, '')} after ${this.rec.chunkMs.length} token chunks.`;
      this.finish('BG_E_STREAM_TRUNCATED', msg, atAbs);
    }
  }
}
