import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePlan } from '../../plan/load.js';
import { runCheckpoint } from '../run.js';

// A /health that redirects to another origin can never become this server's health, so the wait for a
// model load must not spend expect.wait on it (the test's 60 s timeout would catch a 10-minute wait).

describe('health wait and cross-origin redirects', () => {
  let target: http.Server;
  let other: http.Server;
  let otherHits = 0;
  let url = '';
  beforeAll(async () => {
    other = http.createServer((_req, res) => {
      otherHits++;
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    target = http.createServer((req, res) => {
      res.writeHead(307, { location: `${otherUrl}${req.url}` }).end();
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of [target, other]) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  it('stops waiting at once and fails healthy, naming the redirect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-health-redirect-'));
    const plan = resolvePlan(
      { target: { url, engine: 'openai' }, expect: { wait: '10m' }, output: join(dir, 'results') },
      'test plan',
    );
    const { report } = await runCheckpoint({ plan });
    const healthy = report.findings.find((f) => f.id === 'healthy' || f.id === 'reachable');
    expect(report.ok).toBe(false);
    expect(JSON.stringify(report.findings)).toContain('redirect');
    expect(healthy?.status).not.toBe('pass');
    expect(otherHits).toBe(0);
  });
});
