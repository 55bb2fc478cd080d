// A launched server that prints the API key (issue 33 item 3): the key benchgate knows from the plan
// (launch env, target.api_key_env, an --api-key flag) and credential shapes (`Authorization: Bearer …`,
// vLLM's `non-default args: {'api_key': [...]}`, a Bearer split across two writes) never reach
// server-output.log, the "waiting for ready" line, the failure evidence in matrix-state.json or
// matrix-summary.txt.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultStages } from './default-stages.js';
import { freeLoopbackPorts } from './free-port.js';
import { MATRIX_SUMMARY_FILE, runMatrix } from './run-matrix.js';
import { MATRIX_STATE_FILE } from './state.js';
import { testPlan } from './test-support/matrix-fixtures.js';

/** Serves /health 503, prints its keys in every shape, the last one split across two writes, then exits 3. */
const LEAKY_SERVER = `
const port = Number(process.argv[2]);
const flagKey = process.argv[process.argv.indexOf('--api-key') + 1];
require('node:http').createServer((q, s) => { s.writeHead(503); s.end('loading'); }).listen(port, '127.0.0.1');
console.log('INFO non-default args: {' + "'model': 'm', 'api_key': ['" + process.env.LEAK_API_KEY + "'], 'max_num_batched_tokens': 8192}");
console.log('server_args=ServerArgs(model_path=' + "'m', hf_token='" + process.env.HF_TOKEN + "', tp_size=8)");
console.log('got Authorization: Bearer ' + flagKey + ' and sk-' + 'abcdefghijklmnop0123 and hf_' + 'ABCDEFGHijklmnop');
const key = process.env.LEAK_API_KEY;
process.stdout.write('request header Authorization: Bearer ' + key.slice(0, 5));
setTimeout(() => process.stdout.write(key.slice(5) + ' was accepted\\n'), 300);
setTimeout(() => process.exit(3), 2500);
`;

const KEYS = {
  apiKeyEnv: 'apikeyfromenv-5b5b5b',
  launchEnv: 'hftokenvalue-6c6c6c',
  flag: 'flagsecret-7d7d7d',
};

let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'bg-output-secrets-'));
});
afterAll(async () => {
  delete process.env.LEAK_API_KEY;
  await rm(out, { recursive: true, force: true });
});

describe('secrets a launched server prints', () => {
  it('are scrubbed from server-output.log, the ready progress line and the failure evidence', async () => {
    const script = join(out, 'leaky-server.cjs');
    await writeFile(script, LEAKY_SERVER);
    const [port] = await freeLoopbackPorts(1);
    process.env.LEAK_API_KEY = KEYS.apiKeyEnv;
    const base = testPlan(out, [
      {
        name: 'leaky',
        url: `http://127.0.0.1:${port}`,
        launch: {
          command: [process.execPath],
          args: [script, String(port), '--api-key', KEYS.flag],
          env: { HF_TOKEN: KEYS.launchEnv },
        },
        ready_timeout: '60s',
      },
    ]);
    const plan = { ...base, target: { ...base.target, api_key_env: 'LEAK_API_KEY' } };
    const shown: string[] = [];
    const keep = (l: string) => shown.push(l);
    const result = await runMatrix({
      plan,
      planPath: null,
      stages: defaultStages(),
      log: keep,
      progress: keep,
      print: keep,
    });
    expect(result.configs[0]?.status).toBe('failed');
    const dir = result.matrixDir;
    const output = await readFile(join(dir, 'leaky', 'server-output.log'), 'utf8');
    const state = await readFile(join(dir, MATRIX_STATE_FILE), 'utf8');
    const summary = await readFile(join(dir, MATRIX_SUMMARY_FILE), 'utf8');
    // the server did print every line: they are there, scrubbed
    expect(output).toContain("'api_key': ['<redacted>'], 'max_num_batched_tokens': 8192");
    expect(output).toContain("hf_token='<redacted>', tp_size=8");
    expect(output).toContain('Authorization: Bearer <redacted> was accepted');
    expect(state).toContain('Bearer <redacted> was accepted');
    for (const [where, text] of Object.entries({ output, state, summary, shown: shown.join('\n') })) {
      for (const secret of [
        ...Object.values(KEYS),
        'sk-abcdefghijklmnop0123',
        'hf_ABCDEFGHijklmnop',
        'apike',
      ])
        expect(`${where}: ${text.includes(secret) ? secret : 'clean'}`).toBe(`${where}: clean`);
    }
  }, 120_000);
});
