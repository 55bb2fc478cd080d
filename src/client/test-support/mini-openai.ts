// A minimal OpenAI-compatible server for load and CLI tests until/besides the simulator: /v1/models,
// /tokenize (one token per word), streaming /v1/completions with final usage, and /metrics.

import type http from 'node:http';
import { type ScriptedServer, sleep, startScriptedServer } from './scripted-server.js';

export interface MiniOpenAiOptions {
  model?: string;
  /** Delay before the first token and between tokens. */
  ttftMs?: number;
  itlMs?: number;
  /** Answer generation requests with this instead of a stream. */
  html?: boolean;
}

export async function startMiniOpenAi(
  o: MiniOpenAiOptions = {},
): Promise<ScriptedServer & { generations: () => number }> {
  const model = o.model ?? 'mini-model';
  let generations = 0;
  const completions = async (_req: http.IncomingMessage, res: http.ServerResponse, body: string) => {
    if (o.html) {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><html><body>proxy login</body></html>');
      return;
    }
    generations++;
    const b = JSON.parse(body) as { prompt: string; max_tokens: number };
    const promptTokens = (b.prompt.match(/\S+/g) ?? []).length;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await sleep(o.ttftMs ?? 2);
    for (let i = 0; i < b.max_tokens && !res.destroyed; i++) {
      const finish = i === b.max_tokens - 1 ? '"length"' : 'null';
      res.write(
        `data: {"id":"c","object":"text_completion","model":"${model}","choices":[{"index":0,"text":" tok${i}","finish_reason":${finish}}]}\n\n`,
      );
      if (i < b.max_tokens - 1) await sleep(o.itlMs ?? 1);
    }
    res.write(
      `data: {"id":"c","choices":[],"usage":{"prompt_tokens":${promptTokens},"completion_tokens":${b.max_tokens},"total_tokens":${promptTokens + b.max_tokens}}}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  };
  const srv = await startScriptedServer({
    '/v1/models': (_q, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [{ id: model, object: 'model', owned_by: 'mini' }] }));
    },
    '/tokenize': (_q, res, body) => {
      const { prompt } = JSON.parse(body) as { prompt: string };
      const n = (prompt.match(/\S+/g) ?? []).length;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ tokens: Array.from({ length: n }, (_, i) => i), count: n }));
    },
    '/metrics': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('# no counters\n');
    },
    '/v1/completions': completions,
  });
  return Object.assign(srv, { generations: () => generations });
}
