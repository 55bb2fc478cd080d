// The smoke acceptance finding against a real b4747 llama-server's answers (served from fixtures): that
// build runs its draft model but reports no drafts accepted, so the finding fails naming the build and
// the way out; with the server's -v log named, its debug lines prove acceptance.

import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/test-support/run-cli.js';
import { type FixtureServer, startFixtureServer } from '../../engines/fixture-server.js';

const FIXTURES = new URL('../../engines/fixtures/llamacpp-builds/', import.meta.url).pathname;
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

interface JsonFinding {
  id: string;
  status: string;
  found?: string;
  hint?: string;
  evidence: { where: string }[];
}

describe('smoke acceptance on a llama-server build that reports no drafts accepted (b4747)', () => {
  let server: FixtureServer;
  let dir: string;
  const check = async (logs: string): Promise<{ code: number | null; acceptance: JsonFinding }> => {
    const plan = join(dir, `plan-${logs === '' ? 'plain' : 'log'}.yaml`);
    writeFileSync(
      plan,
      `target: { url: ${server.url}, engine: llamacpp, api: completions }\nworkload: { output_tokens: { fixed: 64 } }\noutput: ${dir}/results\nexpect:\n  config:\n    speculative.algorithm: { present: true }\n${logs}`,
    );
    const r = await runCli(['check', plan, '--json']);
    const findings = JSON.parse(r.stdout).findings as JsonFinding[];
    const acceptance = findings.find((f) => f.id === 'smoke.acceptance');
    if (!acceptance) throw new Error(`no smoke.acceptance finding: ${r.stdout.slice(0, 500)}`);
    return { code: r.code, acceptance };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bg-b4747-'));
    server = await startFixtureServer({
      '/health': { status: 'ok' },
      '/props': JSON.parse(fixture('b4747-props-draft.json')),
      '/slots': { body: fixture('b4747-slots-draft.json') },
      '/metrics': fixture('b4747-metrics-draft.txt'),
      '/v1/models': JSON.parse(fixture('b4747-models.json')),
      '/v1/completions': {
        body: fixture('b4747-completions-stream-draft.txt'),
        contentType: 'text/event-stream',
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('fails closed, naming the build, what it lacks, that its slots do speculate, and what to do', async () => {
    const { code, acceptance } = await check('');
    expect(code).toBe(1);
    expect(acceptance.status).toBe('fail');
    expect(acceptance.found).toMatch(/^unknown: build b4747-c5d91a740 does not report drafts accepted/);
    expect(acceptance.found).toMatch(/b4984 \(2025-03-28, commit 5d0167026, #12603\)/);
    expect(acceptance.found).toMatch(/speculative: true on every slot/);
    expect(acceptance.hint).toMatch(/-v and name its log under expect\.logs/);
    expect(acceptance.found).not.toMatch(/meta_info/);
  }, 60_000);

  it('with its -v log named, reads the debug lines "accepted N/M draft tokens" as acceptance', async () => {
    const log = join(dir, 'server.log');
    copyFileSync(join(FIXTURES, 'b4747-server-v-draft.txt'), log);
    const { acceptance } = await check(`  logs: [{ path: ${log} }]\n`);
    expect(acceptance.status).toBe('pass');
    expect(acceptance.found).toBe('1 of 60 drafted tokens accepted on 12 log line(s)');
    expect(acceptance.evidence[0].where).toBe(`${log}:10-21`);
  }, 60_000);
});
