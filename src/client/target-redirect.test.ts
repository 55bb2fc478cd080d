import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchgateError } from '../core/errors.js';
import { createTargetHttp } from './target-http.js';

// The checkpoint's HTTP against two real local servers: the target, which redirects, and another
// origin (another port), which records every request it gets.

interface Seen {
  url: string;
  apiKey: string | undefined;
}

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('createTargetHttp and redirects', () => {
  let target: { server: http.Server; url: string };
  let other: { server: http.Server; url: string };
  const seenByOther: Seen[] = [];
  const seenByTarget: Seen[] = [];
  beforeAll(async () => {
    other = await listen((req, res) => {
      seenByOther.push({ url: req.url ?? '', apiKey: req.headers['x-api-key'] as string | undefined });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"id":"impostor-model"}]}');
    });
    target = await listen((req, res) => {
      seenByTarget.push({ url: req.url ?? '', apiKey: req.headers['x-api-key'] as string | undefined });
      if (req.url === '/v1/models') res.writeHead(302, { location: `${other.url}/v1/models` }).end();
      else if (req.url === '/old/health') res.writeHead(301, { location: '/health' }).end();
      else if (req.url === '/health') res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      else res.writeHead(404).end();
    });
  });
  afterAll(async () => {
    for (const s of [target.server, other.server]) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  it('does not follow a redirect to another origin: an error naming both URLs, headers never sent there', async () => {
    const doc = await createTargetHttp(target.url, { headers: { 'X-Api-Key': 'sk-secret' } }).request(
      '/v1/models',
    );
    expect(doc.status).toBeNull();
    expect(doc.json).toBeUndefined();
    expect(doc.error?.code).toBe('BG_E_CROSS_ORIGIN_REDIRECT');
    expect(doc.error?.message).toContain(`${target.url}/v1/models`);
    expect(doc.error?.message).toContain(`${other.url}/v1/models`);
    expect(doc.error?.message).not.toContain('sk-secret');
    expect(seenByOther).toEqual([]);
  });

  it('follows a redirect within the same origin, with the headers', async () => {
    seenByTarget.length = 0;
    const doc = await createTargetHttp(target.url, { headers: { 'X-Api-Key': 'sk-secret' } }).request(
      '/old/health',
    );
    expect(doc.status).toBe(200);
    expect(doc.text).toBe('ok');
    expect(seenByTarget.map((s) => s.url)).toEqual(['/old/health', '/health']);
    expect(seenByTarget.every((s) => s.apiKey === 'sk-secret')).toBe(true);
  });

  it('refuses an unsendable plan header as a plan error naming it', () => {
    let err: unknown;
    try {
      createTargetHttp(target.url, { headers: { 'X-Api-Key': 'sk-secret\nX-Evil: 1' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BenchgateError);
    expect((err as BenchgateError).code).toBe('BG_E_PLAN_INVALID');
    expect((err as BenchgateError).message).toContain('X-Api-Key');
    expect((err as BenchgateError).message).not.toContain('sk-secret');
  });
});
