// `benchgate k8s` end to end: the YAML on stdout, warnings and refusals on stderr.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../test-support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'bg-k8s-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const flags = ['--shards', '2', '--image', 'registry.example/benchgate:1'];

describe('benchgate k8s', () => {
  it('warns that pods cannot reach a 127.0.0.1 target, and puts api_key_env in the Secret the pods read', async () => {
    const plan = join(dir, 'local.yaml');
    writeFileSync(plan, 'name: local\ntarget:\n  url: http://127.0.0.1:8000\n  api_key_env: BG_TEST_KEY\n');
    const r = await runCli(['k8s', plan, ...flags], { env: { BG_TEST_KEY: 'sk-test-456' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'benchgate: warning: target.url is http://127.0.0.1:8000: inside a pod that is the pod itself',
    );
    const kinds = parseAllDocuments(r.stdout).map((d) => (d.toJSON() as { kind: string }).kind);
    expect(kinds).toEqual(['Secret', 'ConfigMap', 'Job']);
    expect(r.stdout).toContain('secretKeyRef');
  });

  it('refuses an api_key_env that is not set here, naming it', async () => {
    const plan = join(dir, 'keyed.yaml');
    writeFileSync(
      plan,
      'name: keyed\ntarget:\n  url: http://vllm.svc:8000\n  api_key_env: BG_TEST_UNSET_KEY\n',
    );
    const r = await runCli(['k8s', plan, ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('target.api_key_env names BG_TEST_UNSET_KEY, which is not set here');
    expect(r.stdout).toBe('');
  });
});
