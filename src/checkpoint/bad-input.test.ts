import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../plan/load.js';
import type { PlanInput } from '../plan/schema.js';
import type { Finding } from './finding.js';
import { runCheckpoint } from './run.js';

/** A real HTTP server on port 0 answering each path from a table (default: 404). */
async function serve(
  routes: Record<string, { status?: number; type?: string; body: string }>,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const r = routes[(req.url ?? '/').split('?')[0]] ?? routes['*'] ?? { status: 404, body: 'not found' };
    res.writeHead(r.status ?? 200, { 'content-type': r.type ?? 'application/json' });
    res.end(r.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

async function check(input: PlanInput) {
  const dir = mkdtempSync(join(tmpdir(), 'bg-bad-'));
  const plan = resolvePlan({ output: join(dir, 'results'), ...input }, 'test plan');
  const { report, verifiedTarget } = await runCheckpoint({ plan });
  const by = (id: string): Finding => {
    const f = report.findings.find((x) => x.id === id);
    if (!f) throw new Error(`no finding ${id}: ${report.findings.map((x) => x.id).join(', ')}`);
    return f;
  };
  return { report, verifiedTarget, by, dir };
}

describe('bad input becomes clear findings, never a crash', () => {
  it('an unreachable port fails reachable and every config expectation, with no verified target', async () => {
    const probe = await serve({});
    const url = probe.url;
    await new Promise((r) => probe.server.close(r));
    const r = await check({ target: { url }, expect: { config: { tp_size: 8 } } });
    expect(r.by('reachable')).toMatchObject({ status: 'fail' });
    expect(r.by('reachable').found).toMatch(/\S/);
    expect(r.by('config.tp_size').found).toBe('unknown: the target is not reachable');
    expect(r.verifiedTarget).toBeNull();
    expect(r.report.ok).toBe(false);
  });

  it('non-JSON endpoints give a model failure and a failed smoke, not an exception', async () => {
    const { url, server } = await serve({ '*': { type: 'text/html', body: '<html>proxy login</html>' } });
    try {
      const r = await check({ target: { url } });
      expect(r.by('reachable').status).toBe('pass');
      expect(r.by('model').status).toBe('fail');
      expect(r.by('model').found).toContain('not JSON');
      expect(['fail', 'skip']).toContain(r.by('smoke').status);
      expect(r.report.ok).toBe(false);
    } finally {
      server.close();
    }
  });

  it('partial and truncated documents leave fields unknown, and say so', async () => {
    const { url, server } = await serve({
      '/health': { body: '' },
      '/v1/models': { body: '{"object":"list","data":[{"object":"model"}]}' },
      '/server_info': { body: '{"tp_size": 8, "speculative_alg' },
      '/get_server_info': { body: '{"tp_size": 8, "speculative_alg' },
    });
    try {
      const r = await check({
        target: { url, engine: 'sglang' },
        expect: { config: { 'speculative.topk': 1 }, smoke: false },
      });
      expect(r.by('config.speculative.topk').found).toMatch(/^unknown: not exposed by sglang; read it from /);
      expect(r.by('model').status).toBe('fail');
    } finally {
      server.close();
    }
  });

  it('a missing log and a log that is a directory fail with clear sentences', async () => {
    const { url, server } = await serve({
      '/health': { body: 'ok' },
      '/v1/models': { body: '{"data":[{"id":"m"}]}' },
    });
    const dir = mkdtempSync(join(tmpdir(), 'bg-bad-log-'));
    try {
      const r = await check({
        target: { url },
        expect: { smoke: false, logs: [{ path: join(dir, 'missing.log') }, { path: dir }] },
      });
      expect(r.by('log.0.read')).toMatchObject({ status: 'fail', found: 'no such file' });
      expect(r.by('log.1.read').status).toBe('fail');
      expect(r.by('log.1.read').found).toMatch(/^Expected to read .* on the local host; found EISDIR\.$/);
    } finally {
      server.close();
    }
  });

  it('a log whose last start predates the server process is stale, with line-numbered evidence', async () => {
    const { url, server } = await serve({
      '/health': { body: 'ok' },
      '/v1/models': { body: '{"data":[{"id":"m"}]}' },
    });
    const dir = mkdtempSync(join(tmpdir(), 'bg-stale-'));
    const log = join(dir, 'server.log');
    writeFileSync(
      log,
      [
        "[2020-01-01 10:00:00] server_args=ServerArgs(model_path='m', tp_size=8, speculative_algorithm='EAGLE3')",
        '[2020-01-01 10:00:01] Spec v2 is enabled.',
        '[2020-01-01 10:05:00] The server is fired up and ready to roll!',
      ].join('\n'),
    );
    try {
      const r = await check({
        target: { url, engine: 'sglang' },
        expect: { smoke: false, logs: [{ path: log, contains: 'Spec v2 is enabled' }] },
      });
      const fresh = r.by('log.0.fresh');
      expect(fresh.status).toBe('fail');
      expect(fresh.found).toMatch(/^stale: the last start marker \(line 1, 2020-01-01T10:00:00/);
      expect(fresh.evidence[0].where).toBe(`${log}:1`);
      expect(r.report.ok).toBe(false);
    } finally {
      server.close();
    }
  });
});
