import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../plan/load.js';
import { renderJson } from './render-json.js';
import { runCheckpoint } from './run.js';

describe('secrets never reach findings or the verified target', () => {
  it('keeps API keys, header values and server-side keys out of every output', async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      const path = (req.url ?? '').split('?')[0];
      res.setHeader('content-type', 'application/json');
      if (path === '/health') res.end('{}');
      else if (path === '/v1/models') res.end('{"object":"list","data":[{"id":"m","owned_by":"sglang"}]}');
      else if (path === '/server_info' || path === '/get_server_info') {
        res.end(
          '{"version":"0.5.5","tp_size":2,"api_key":"sk-serverside-0123456789","admin_api_key":"adm1n-zz","model_path":"m"}',
        );
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    process.env.BG_TEST_KEY = 'sk-client-9876543210abcdef';
    try {
      const plan = resolvePlan(
        {
          target: {
            url: `http://127.0.0.1:${port}`,
            engine: 'sglang',
            api_key_env: 'BG_TEST_KEY',
            headers: { 'X-Token': 'tok-xyz-123' },
          },
          expect: { smoke: false, config: { tp_size: 2 } },
          output: join(mkdtempSync(join(tmpdir(), 'bg-secret-')), 'results'),
        },
        'test plan',
      );
      const { report, verifiedTarget } = await runCheckpoint({ plan });
      expect(report.findings.find((f) => f.id === 'config.tp_size')?.status).toBe('pass');
      const out = renderJson(report, verifiedTarget);
      for (const secret of [
        'sk-client-9876543210abcdef',
        'tok-xyz-123',
        'sk-serverside-0123456789',
        'adm1n-zz',
      ]) {
        expect(out).not.toContain(secret);
      }
      expect(verifiedTarget?.url).toBe(`http://127.0.0.1:${port}`);
      // the key was still sent to the server
      expect(seen).toContain('Bearer sk-client-9876543210abcdef');
    } finally {
      delete process.env.BG_TEST_KEY;
      server.close();
    }
  });
});
