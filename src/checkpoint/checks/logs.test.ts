// End to end: the real `benchgate check --json` against a fixture vLLM server, judging corpus logs
// (terminal-wrapped config, dead starts, speculative decoding that never accepts, bad input).

import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/test-support/run-cli.js';
import { type FixtureServer, startFixtureServer } from '../../engines/fixture-server.js';

const CORPUS = new URL('../../engines/corpus/', import.meta.url).pathname;

interface JsonFinding {
  id: string;
  status: string;
  found?: string;
  title?: string;
  evidence: { where: string; excerpt: string }[];
}

async function checkJson(
  planPath: string,
): Promise<{ code: number | null; findings: JsonFinding[]; stderr: string }> {
  const r = await runCli(['check', planPath, '--json']);
  return { code: r.code, findings: JSON.parse(r.stdout).findings, stderr: r.stderr };
}

describe('benchgate check reads real-world logs', () => {
  let server: FixtureServer;
  let dir: string;
  const run = async (logName: string, logText: string | null, config = '{}', engine = 'vllm') => {
    const logPath = join(dir, logName);
    if (logText === null) copyFileSync(join(CORPUS, logName), logPath);
    else writeFileSync(logPath, logText);
    const planPath = join(dir, `${logName}.yaml`);
    writeFileSync(
      planPath,
      `target: { url: ${server.url}, engine: ${engine} }\noutput: ${dir}/results\nexpect:\n  smoke: false\n  config: ${config}\n  logs: [{ path: ${logPath} }]\n`,
    );
    const r = await checkJson(planPath);
    const by = (id: string) => r.findings.find((f) => f.id === id);
    return { ...r, by, logPath };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bg-logs-e2e-'));
    server = await startFixtureServer({
      '/health': { body: '' },
      '/version': { version: '0.11.2' },
      '/server_info': {
        model_path: 'meta-llama/Llama-3.1-8B-Instruct',
        tp_size: 2,
        speculative_algorithm: 'EAGLE3',
      },
      '/v1/models': {
        object: 'list',
        data: [{ id: 'meta-llama/Llama-3.1-8B-Instruct', object: 'model', owned_by: 'vllm' }],
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('reads tp_size, gpu_memory_utilization and max_model_len from a log wrapped at 80 and 120 columns', async () => {
    const r = await run(
      'vllm-wrapped-80-and-120.txt',
      null,
      '{ tp_size: 2, vllm.gpu_memory_utilization: 0.85, context_length: 32768, speculative.algorithm: eagle3 }',
    );
    for (const key of ['tp_size', 'vllm.gpu_memory_utilization', 'context_length', 'speculative.algorithm']) {
      expect({ key, status: r.by(`config.${key}`)?.status }).toEqual({ key, status: 'pass' });
    }
    expect(r.by('config.tp_size')?.evidence[0].where).toMatch(/vllm-wrapped-80-and-120\.txt:\d+$/);
    // The fixture server runs in this process, started after the corpus log's timestamps: only the
    // freshness finding may (rightly) call the log stale.
    expect(r.findings.filter((f) => f.status === 'fail' && f.id !== 'log.0.fresh')).toEqual([]);
  });

  it('fails a dead start (WorkerProc failed to start after Loading drafter model...) with its line', async () => {
    const r = await run('vllm-workerproc-failed.txt', null);
    const start = r.by('log.0.start');
    expect(start?.status).toBe('fail');
    expect(start?.found).toContain('line 6');
    expect(start?.found).toContain('WorkerProc failed to start');
    expect(start?.found).toContain('CUDA out of memory');
    expect(start?.evidence[0].where).toBe(`${r.logPath}:6`);
    expect(r.code).toBe(1);
  });

  it('flags speculative decoding that never accepts a draft token', async () => {
    const r = await run('vllm-spec-never-accepted.txt', null);
    const acc = r.by('log.0.spec_acceptance');
    expect(acc?.status).toBe('fail');
    expect(acc?.found).toContain('speculative decoding configured but never accepted');
    expect(acc?.found).toContain('0 accepted of 1362 drafted tokens');
    const ok = await run('vllm-spec-accepted.txt', null);
    expect(ok.by('log.0.spec_acceptance')?.status).toBe('pass');
  });

  it('fails an SGLang start that died in its scheduler, and SGLang decoding that never accepts', async () => {
    const dead = await run(
      'sglang-scheduler-exception.txt',
      null,
      '{ speculative.algorithm: eagle3 }',
      'sglang',
    );
    expect(dead.by('config.speculative.algorithm')?.status).toBe('pass');
    expect(dead.by('log.0.start')?.status).toBe('fail');
    expect(dead.by('log.0.start')?.found).toMatch(/line 3: .*Scheduler hit an exception.*ValueError/);
    const idle = await run('sglang-accept-len-ones.txt', null, '{}', 'sglang');
    expect(idle.by('log.0.spec_acceptance')?.found).toContain(
      'speculative decoding configured but never accepted',
    );
  });

  it('reports the CUDA out-of-memory inside a docker compose log (a `llm0-1  | ` prefix on every line)', async () => {
    const r = await run('paste-compose-sglang-cuda-oom.txt', null, '{}', 'sglang');
    expect(r.by('log.0.read')).toBeUndefined();
    expect(r.by('log.0.start')?.status).toBe('fail');
    expect(r.by('log.0.start')?.found).toMatch(/line 4: .*CUDA out of memory/);
  });

  it('judges a compose log of two interleaved services as two logs', async () => {
    const r = await run('paste-compose-two-services-interleaved.txt', null, '{}', 'sglang');
    expect(r.by('log.0.0.start')?.status).toBe('fail');
    expect(r.by('log.0.0.start')?.found).toMatch(/line 5: .*CUDA out of memory/);
    expect(r.by('log.0.0.start')?.title).toContain('[llm0-1]');
    expect(r.by('log.0.1.start')).toBeUndefined();
    expect(r.by('log.0.1.fresh')?.evidence[0].where).toMatch(/\[llm1-1\]:2$/);
  });

  it("judges the engine's service of a compose log and not its proxy's access log", async () => {
    const r = await run('paste-compose-vllm-and-nginx.txt', null);
    expect(r.findings.filter((f) => f.id.startsWith('log.0.0.'))).toEqual([]);
    expect(r.by('log.0.1.start')?.found).toMatch(/line 5: .*EngineCore failed to start.*CUDA out of memory/);
  });

  it.each([
    ['empty.log', '', /unreadable: the file is empty/],
    [
      'garbage.log',
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)).toString('latin1'),
      /unreadable: binary data/,
    ],
    [
      'huge.log',
      'lorem ipsum dolor sit amet '.repeat(400_000),
      /unreadable: no line looks like a server log record/,
    ],
  ])('says %s is unreadable, with an excerpt, instead of crashing or passing', async (name, text, found) => {
    const r = await run(name, text);
    const read = r.by('log.0.read');
    expect(read?.status).toBe('fail');
    expect(read?.found).toMatch(found);
    expect(read?.evidence[0].excerpt.length).toBeGreaterThan(0);
    expect(r.stderr).not.toContain('    at ');
    expect(r.code).toBe(1);
  });
});
