// Small HTTP helpers for the simulator's surfaces: JSON bodies, FastAPI-style errors, SSE framing.

import type { IncomingMessage, ServerResponse } from 'node:http';

export async function readJsonBody(req: IncomingMessage, limitBytes = 64 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limitBytes) throw new Error('request body too large');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  return JSON.parse(text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType = 'text/plain; charset=utf-8',
) {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** SGLang's ErrorResponse (`{"object":"error", message, type, param, code}`). */
export function sendOpenAiError(
  res: ServerResponse,
  status: number,
  message: string,
  type = 'BadRequestError',
): void {
  sendJson(res, status, { object: 'error', message, type, param: null, code: status });
}

/** Sends an error answer in one engine's body shape. */
export type ErrorSender = (res: ServerResponse, status: number, message: string, type?: string) => void;

/** vLLM's ErrorResponse (`{"error": {message, type, param, code}}`, entrypoints/openai/engine/protocol.py). */
export function sendVllmError(
  res: ServerResponse,
  status: number,
  message: string,
  type = 'BadRequestError',
): void {
  sendJson(res, status, { error: { message, type, param: null, code: status } });
}

export function sendNotFound(res: ServerResponse): void {
  sendJson(res, 404, { detail: 'Not Found' });
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

export const SSE_DONE = 'data: [DONE]\n\n';
